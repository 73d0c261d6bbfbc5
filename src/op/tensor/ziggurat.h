#pragma once
// Internal: standard normal draws by Marsaglia and Tsang's ziggurat, on the counter-based bits of
// random_draws.h: one 64-bit word per draw in 99% of cases, no logarithm or cosine. The CPU's
// normal samplers use it (host code only: OpenMP).
#include <algorithm>
#include <cstdint>

#include "random_draws.h"

namespace braid::op::detail {

/// 128 strips of equal area under exp(-x²/2), x ≥ 0 (ziggurat.cc): strip k spans [0, edge[k]].
struct Ziggurat {
  static constexpr int kStrips = 128;
  double edge[kStrips + 1];
  double height[kStrips + 1];  // exp(-edge[k]²/2)
};
extern const Ziggurat kZiggurat;

/// The first word's draw `z`; false when its point fell outside the strip above's width (about
/// 1.2% of words), where ziggurat_normal_slow finishes the draw.
inline bool ziggurat_fast(uint64_t bits, double& z) {
  const int k = static_cast<int>(bits & (Ziggurat::kStrips - 1));
  const double x = static_cast<double>(bits >> 11) * 0x1.0p-53 * kZiggurat.edge[k];
  z = (1.0 - static_cast<double>((bits >> 6) & 2)) * x;  // bit 7 is the sign, without a branch
  return x < kZiggurat.edge[k + 1];
}
double ziggurat_normal_slow(uint64_t bits);

/// A standard normal for element i of a sampler seeded with `seed`: a function of (seed, i) alone.
inline double ziggurat_normal(uint64_t seed, int64_t i) {
  const uint64_t bits = random_bits(seed, static_cast<uint64_t>(i));
  double z;
  return ziggurat_fast(bits, z) ? z : ziggurat_normal_slow(bits);
}

/// out[i] = loc + scale · ziggurat_normal(seed, i) for i in [0, n): per block, the first words
/// in one vectorized pass, then the few draws that need more.
template <class T>
void fill_normals(uint64_t seed, double loc, double scale, T* out, int64_t n) {
  constexpr int64_t kBlock = 4096;
#pragma omp parallel for schedule(static) if (n > 16 * kBlock)
  for (int64_t begin = 0; begin < n; begin += kBlock) {
    const int64_t count = std::min(kBlock, n - begin);
    bool done[kBlock];
#pragma omp simd
    for (int64_t k = 0; k < count; ++k) {
      double z;
      done[k] = ziggurat_fast(random_bits(seed, static_cast<uint64_t>(begin + k)), z);
      out[begin + k] = static_cast<T>(loc + scale * z);
    }
    for (int64_t k = 0; k < count; ++k)
      if (!done[k])
        out[begin + k] =
            static_cast<T>(loc + scale * ziggurat_normal_slow(random_bits(seed, static_cast<uint64_t>(begin + k))));
  }
}

}  // namespace braid::op::detail
