#include "braid/base/half.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define BRAID_HAVE_F16C_PATH 1
#endif

namespace braid {

float half_to_float(half_t h) {
  uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t mant = h.bits & 0x3ffu;
  uint32_t u;
  if (exp == 0) {
    if (mant == 0) {
      u = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      u = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else {
    u = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

half_t float_to_half(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return half_t{static_cast<uint16_t>(sign | 0x7e00u)};   // NaN
  if (abs >= 0x477ff000u) return half_t{static_cast<uint16_t>(sign | 0x7c00u)};  // overflow -> inf
  if (abs < 0x38800000u) {                                                       // subnormal or zero in half
    if (abs < 0x33000000u) return half_t{sign};
    uint32_t e = abs >> 23;
    uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e;  // 14 - (e - 127) + 13 - 1 ... keeps 10 mantissa bits after shift
    uint32_t half_mant = mant >> (shift);
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return half_t{static_cast<uint16_t>(sign | half_mant)};
  }
  uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return half_t{static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13))};
}

namespace {

#if BRAID_HAVE_F16C_PATH
// Compiled for F16C whatever the build's -march; called only where the processor has it.
__attribute__((target("avx,f16c"))) void halves_to_floats_f16c(const half_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  for (; i < n; ++i) out[i] = half_to_float(in[i]);
}

__attribute__((target("avx,f16c"))) void floats_to_halves_f16c(const float* in, half_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) out[i] = float_to_half(in[i]);
}

// CPUID leaf 1: F16C and AVX, and the OS saving the AVX registers (OSXSAVE, then XCR0's SSE and
// AVX bits). Asked directly: clang 14's __builtin_cpu_supports does not know "f16c".
bool has_f16c() {
  static const bool yes = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    constexpr unsigned kOsxsave = 1u << 27, kAvx = 1u << 28, kF16c = 1u << 29;
    if ((ecx & (kOsxsave | kAvx | kF16c)) != (kOsxsave | kAvx | kF16c)) return false;
    unsigned xcr0 = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
    return (xcr0 & 6u) == 6u;
  }();
  return yes;
}
#endif

}  // namespace

void halves_to_floats(const half_t* in, float* out, int64_t n) {
#if BRAID_HAVE_F16C_PATH
  if (has_f16c()) return halves_to_floats_f16c(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = half_to_float(in[i]);
}

void floats_to_halves(const float* in, half_t* out, int64_t n) {
#if BRAID_HAVE_F16C_PATH
  if (has_f16c()) return floats_to_halves_f16c(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(in[i]);
}

}  // namespace braid
