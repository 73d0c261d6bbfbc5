#pragma once
// The random generator of each context, guarded by an engine variable so that random
// ops run in push order and a seed gives the same numbers under every engine.
#include <random>

#include "braid/base/context.h"
#include "braid/engine/engine.h"

namespace braid::imperative {

struct RandomState {
  std::mt19937_64 generator;
  engine::VarHandle var = nullptr;
};

/// The state of `ctx`, created on first use from the global seed.
RandomState& random_state(Context ctx);
/// Seeds every context's generator from `seed` (mx.random.seed), in push order.
void reseed(uint64_t seed);
/// Seeds the generator of `ctx` only, from `seed` and ctx's device type (not its id), in push order.
void reseed(uint64_t seed, Context ctx);

}  // namespace braid::imperative
