#pragma once
// CPython's random.seed(n) followed by random.shuffle(items), reproduced exactly (MT19937 seeded
// by init_by_array with n's 32-bit words, _randbelow by rejection over getrandbits), so that
// braid im2rec --list writes the order MXNet's tools/im2rec.py writes (random.seed(100)).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace braid::cli {

class PythonRandom {
 public:
  /// random.seed(seed) for a non-negative integer below 2^32.
  explicit PythonRandom(uint32_t seed);
  /// random.shuffle(items).
  template <class T>
  void shuffle(std::vector<T>& items) {
    for (size_t i = items.size(); i-- > 1;) std::swap(items[i], items[below(uint32_t(i + 1))]);
  }

 private:
  uint32_t next();             // genrand_uint32
  uint32_t below(uint32_t n);  // _randbelow(n), n > 0
  uint32_t state_[624];
  int index_ = 624;
};

}  // namespace braid::cli
