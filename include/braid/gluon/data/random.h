#pragma once
/// Randomness of the data pipeline (RandomSampler, random transforms), reproducible under
/// nd::seed whatever the number of DataLoader workers.
///
/// Inside a RandomScope, draws come from the scope's own generator (the DataLoader opens one per
/// batch, seeded from a seed it draws from Braid's global generator at the start of each epoch,
/// so batch k gets the same numbers on any thread). Outside any scope, each draw takes one number
/// from Braid's global generator (an engine operation that is waited for).
#include <cstdint>
#include <random>

namespace braid::gluon::data {

/// A uniformly random 64-bit number.
uint64_t random_u64();
/// Uniform in [0, n); n must be positive.
uint64_t random_below(uint64_t n);
/// Uniform in [0, 1).
double random_unit();

/// While alive, random_u64() on this thread draws from a generator seeded with `seed`. Scopes
/// nest; the innermost one is used.
class RandomScope {
 public:
  explicit RandomScope(uint64_t seed);
  ~RandomScope();
  RandomScope(const RandomScope&) = delete;
  RandomScope& operator=(const RandomScope&) = delete;

 private:
  std::mt19937_64 generator_;
  std::mt19937_64* outer_;  // the enclosing scope's generator, or null
};

/// A well-mixed seed derived from `seed` and `stream` (SplitMix64), e.g. (epoch seed, batch).
uint64_t mix_seed(uint64_t seed, uint64_t stream);

}  // namespace braid::gluon::data
