#include "braid/gluon/data/random.h"

#include "braid/base/error.h"
#include "braid/ndarray/random.h"

namespace braid::gluon::data {
namespace {

thread_local std::mt19937_64* t_generator = nullptr;  // of the innermost scope

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// One number from Braid's global generator (62 random bits, spread over 64).
uint64_t draw_global() {
  NDArray r = nd::random_randint(0, int64_t{1} << 62, Shape({1}), cpu(), DType::Int64);
  return splitmix64(static_cast<uint64_t>(r.scalar<int64_t>()));
}

}  // namespace

RandomScope::RandomScope(uint64_t seed) : generator_(seed), outer_(t_generator) { t_generator = &generator_; }

RandomScope::~RandomScope() { t_generator = outer_; }

uint64_t random_u64() { return t_generator ? (*t_generator)() : draw_global(); }

uint64_t random_below(uint64_t n) {
  BRAID_CHECK(n > 0, "random_below: the range [0, n) is empty (n = 0)");
  // Rejection keeps every value equally likely.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t r;
  do r = random_u64();
  while (r >= limit);
  return r % n;
}

double random_unit() { return static_cast<double>(random_u64() >> 11) * 0x1.0p-53; }

uint64_t mix_seed(uint64_t seed, uint64_t stream) { return splitmix64(splitmix64(seed) ^ stream); }

}  // namespace braid::gluon::data
