#include "python_random.h"

namespace braid::cli {

PythonRandom::PythonRandom(uint32_t seed) {
  // init_genrand(19650218), then init_by_array with the one-word key {seed}.
  state_[0] = 19650218u;
  for (uint32_t i = 1; i < 624; ++i) state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
  uint32_t i = 1;
  for (int k = 624; k > 0; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1664525u)) + seed;  // key[0] + j (j = 0)
    if (++i >= 624) state_[0] = state_[623], i = 1;
  }
  for (int k = 623; k > 0; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1566083941u)) - i;
    if (++i >= 624) state_[0] = state_[623], i = 1;
  }
  state_[0] = 0x80000000u;
}

uint32_t PythonRandom::next() {
  if (index_ >= 624) {
    for (int k = 0; k < 624; ++k) {
      const uint32_t y = (state_[k] & 0x80000000u) | (state_[(k + 1) % 624] & 0x7fffffffu);
      state_[k] = state_[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    index_ = 0;
  }
  uint32_t y = state_[index_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

uint32_t PythonRandom::below(uint32_t n) {
  int bits = 0;  // n.bit_length()
  while (bits < 32 && (n >> bits) != 0) ++bits;
  for (;;) {
    const uint32_t r = next() >> (32 - bits);  // getrandbits(bits)
    if (r < n) return r;
  }
}

}  // namespace braid::cli
