#include "imperative/random_state.h"

#include <map>
#include <mutex>

namespace braid::imperative {
namespace {

struct RandomStates {
  std::mutex mu;
  uint64_t seed = 0;
  std::map<Context, RandomState> states;
};

RandomStates& states() {
  static RandomStates* s = new RandomStates();  // never destroyed: used by engine ops at exit
  return *s;
}

// Each context gets its own stream derived from the global seed.
uint64_t context_seed(uint64_t seed, Context ctx) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(ctx.dev_type) * 1000003ull +
         static_cast<uint64_t>(ctx.dev_id);
}

}  // namespace

RandomState& random_state(Context ctx) {
  RandomStates& s = states();
  std::lock_guard<std::mutex> lock(s.mu);
  auto [it, fresh] = s.states.try_emplace(ctx);
  if (fresh) {
    it->second.generator.seed(context_seed(s.seed, ctx));
    it->second.var = engine::Engine::get().new_var();
  }
  return it->second;
}

namespace {

void push_seed(RandomState& state, Context ctx, uint64_t cs) {
  engine::VarHandle v = state.var;
  auto* gen = &state.generator;
  engine::Engine::get().push([gen, cs] { gen->seed(cs); }, ctx, {}, std::span<const engine::VarHandle>(&v, 1), 0,
                             "random_seed");
}

}  // namespace

void reseed(uint64_t seed) {
  auto& s = states();
  std::lock_guard<std::mutex> lock(s.mu);
  s.seed = seed;
  for (auto& [ctx, state] : s.states) push_seed(state, ctx, context_seed(seed, ctx));
}

void reseed(uint64_t seed, Context ctx) {
  RandomState& state = random_state(ctx);
  push_seed(state, ctx, context_seed(seed, Context{ctx.dev_type, 0}));
}

}  // namespace braid::imperative
