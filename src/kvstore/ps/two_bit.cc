#include "two_bit.h"

#include <cstring>

namespace braid::kv::ps::two_bit {
namespace {

// Element j of a block of sixteen: byte j / 4, bits 7-6 for j % 4 == 0 down to bits 1-0.
constexpr int shift_of(int64_t j) { return 6 - 2 * static_cast<int>(j & 3); }
constexpr uint8_t kPositive = 0x3, kNegative = 0x2;

}  // namespace

void quantize(const float* grad, float* residual, int64_t n, float threshold, uint8_t* codes) {
  std::memset(codes, 0, static_cast<size_t>(code_bytes(n)));
  for (int64_t i = 0; i < n; ++i) {
    float& r = residual[i];
    r += grad[i];
    uint8_t code = 0;
    if (r >= threshold) {
      code = kPositive;
      r -= threshold;
    } else if (r <= -threshold) {
      code = kNegative;
      r += threshold;
    }
    codes[i / 4] |= static_cast<uint8_t>(code << shift_of(i));
  }
}

void add_decoded(const uint8_t* codes, int64_t n, float threshold, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t code = (codes[i / 4] >> shift_of(i)) & 0x3;
    if (code == kPositive)
      out[i] += threshold;
    else if (code == kNegative)
      out[i] -= threshold;
  }
}

}  // namespace braid::kv::ps::two_bit
