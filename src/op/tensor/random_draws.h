#pragma once
// Internal: counter-based random draws, shared by the CPU (random.cc, random_samplers.cc) and CUDA
// (random.cu) samplers. A sampler draws one 64-bit seed from its context's generator
// (OpContext::rng, so mx.random.seed makes samples reproducible) and element i of its output is
// a function of (seed, i) alone: the elements can be computed by any number of threads, in any
// order, with the same result.
#include <cmath>
#include <cstdint>

#include "op/math/host_device.h"

namespace braid::op::detail {

/// SplitMix64's finalizer: a bijection of 64-bit words whose outputs look independent.
BRAID_HOST_DEVICE uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// 64 random bits for (seed, counter). The counter is mixed before the seed is added, so that
/// two seeds give unrelated sequences rather than shifted copies of one.
BRAID_HOST_DEVICE uint64_t random_bits(uint64_t seed, uint64_t counter) {
  return mix64(mix64(counter * 0x9E3779B97F4A7C15ull + 0x9E3779B97F4A7C15ull) + seed);
}

/// Uniform in [0, 1) with 53 random bits.
BRAID_HOST_DEVICE double uniform_at(uint64_t seed, uint64_t counter) {
  return static_cast<double>(random_bits(seed, counter) >> 11) * 0x1.0p-53;
}

/// The uniforms of one output element i: SplitMix64's sequence from a start that (seed, i) gives.
struct Draws {
  uint64_t state;

  BRAID_HOST_DEVICE Draws(uint64_t seed, int64_t i) : state(random_bits(seed, static_cast<uint64_t>(i))) {}
  struct FromState {};
  BRAID_HOST_DEVICE Draws(uint64_t s, FromState) : state(s) {}  // go on from a sequence's state
  BRAID_HOST_DEVICE uint64_t bits() {
    state += 0x9E3779B97F4A7C15ull;
    return mix64(state);
  }
  BRAID_HOST_DEVICE double uniform() { return static_cast<double>(bits() >> 11) * 0x1.0p-53; }
  BRAID_HOST_DEVICE double open_uniform() { return 1.0 - uniform(); }  // in (0, 1]
  /// A standard normal: Marsaglia's polar method (one logarithm, no cosine).
  BRAID_HOST_DEVICE double normal() {
    for (;;) {
      const double x = 2 * uniform() - 1, y = 2 * uniform() - 1, r2 = x * x + y * y;
      if (r2 < 1 && r2 > 0) return x * std::sqrt(-2 * std::log(r2) / r2);
    }
  }
};

/// log(k!) for an integer k >= 0: a table below 10, Stirling's series above (error < 1e-10).
BRAID_HOST_DEVICE double log_factorial(double k) {
  if (k < 10) {
    double f = 1;
    for (double j = 2; j <= k; ++j) f *= j;
    return std::log(f);
  }
  const double n = k + 1, inv = 1 / n;
  return (n - 0.5) * std::log(n) - n + 0.9189385332046728 +
         inv * (1.0 / 12 - inv * inv * (1.0 / 360 - inv * inv / 1260));
}

/// Gamma with shape alpha and scale beta (mean alpha·beta): Marsaglia and Tsang's method, a shape
/// below 1 through alpha + 1 and u^(1/alpha).
BRAID_HOST_DEVICE double draw_gamma(Draws& d, double alpha, double beta) {
  const double boost = alpha < 1 ? std::pow(d.open_uniform(), 1.0 / alpha) : 1.0;
  const double a = alpha < 1 ? alpha + 1 : alpha;
  const double dd = a - 1.0 / 3, c = 1.0 / std::sqrt(9 * dd);
  for (;;) {
    const double x = d.normal(), t = 1 + c * x;
    if (t <= 0) continue;
    const double v = t * t * t, u = d.open_uniform(), x2 = x * x;
    if (u < 1 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + dd - dd * v + dd * std::log(v))  // a cheap squeeze first
      return dd * v * beta * boost;
  }
}

/// Poisson with mean lam: Knuth's products of uniforms for small means, Hörmann's transformed
/// rejection (PTRS) otherwise.
BRAID_HOST_DEVICE double draw_poisson(Draws& d, double lam) {
  if (lam <= 0) return 0;
  if (lam < 10) {
    const double limit = std::exp(-lam);
    double p = d.uniform();
    int64_t k = 0;
    while (p > limit) {
      p *= d.uniform();
      ++k;
    }
    return static_cast<double>(k);
  }
  const double slam = std::sqrt(lam), loglam = std::log(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = d.uniform() - 0.5, v = d.uniform(), us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - log_factorial(k))
      return k;
  }
}

/// MXNet's sampling distributions, each with two parameters (a, b) (the second unused by the
/// one-parameter ones).
enum class ScalarDist { Uniform, Normal, Gamma, Exponential, Poisson, NegativeBinomial, GeneralizedNegativeBinomial };

/// One draw: uniform [low, high); normal (loc, scale); gamma (alpha, beta); exponential (rate
/// lam); poisson (lam); negative binomial (failures before the k-th success, success probability
/// p: a Poisson of a gamma-distributed rate, as MXNet samples it); generalized negative binomial
/// (mean mu, dispersion alpha; alpha 0 is Poisson(mu)).
BRAID_HOST_DEVICE double draw(ScalarDist dist, Draws& d, double a, double b) {
  switch (dist) {
    case ScalarDist::Uniform:
      return a + (b - a) * d.uniform();
    case ScalarDist::Normal:
      return a + b * d.normal();
    case ScalarDist::Gamma:
      return draw_gamma(d, a, b);
    case ScalarDist::Exponential:
      return -std::log(d.open_uniform()) / a;
    case ScalarDist::Poisson:
      return draw_poisson(d, a);
    case ScalarDist::NegativeBinomial:
      return b >= 1 ? 0.0 : draw_poisson(d, draw_gamma(d, a, (1 - b) / b));
    default:
      return b == 0 ? draw_poisson(d, a) : draw_poisson(d, draw_gamma(d, 1 / b, b * a));
  }
}

}  // namespace braid::op::detail
