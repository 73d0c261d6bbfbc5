#pragma once
/// 16-bit floating storage types (IEEE half and bfloat16) with conversion to and from float.
#include <cstdint>
#include <cstring>

namespace braid {

struct half_t {
  uint16_t bits = 0;
};
struct bfloat16_t {
  uint16_t bits = 0;
};

float half_to_float(half_t h);
half_t float_to_half(float f);  // round to nearest even

/// The same conversions for n values at once: with the processor's F16C instructions where it has
/// them (several times faster), the same results bit for bit except NaN payloads.
void halves_to_floats(const half_t* in, float* out, int64_t n);
void floats_to_halves(const float* in, half_t* out, int64_t n);

inline float bfloat16_to_float(bfloat16_t b) {
  uint32_t u = static_cast<uint32_t>(b.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline bfloat16_t float_to_bfloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bfloat16_t{static_cast<uint16_t>((u >> 16) | 0x40)};  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return bfloat16_t{static_cast<uint16_t>(u >> 16)};
}

}  // namespace braid
