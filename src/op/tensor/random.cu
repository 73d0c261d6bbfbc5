// CUDA kernels of the sampling ops (random.cc, and the samplers with scalar parameters of
// random_dist.h: gamma, exponential, poisson and the negative binomials, _like forms too): each
// call draws a 64-bit seed from the host generator (OpContext::rng, so nd::seed makes GPU samples
// reproducible too), and element i is a function of (seed, i) through a counter-based hash, so
// the threads need no state. The samples follow the same distributions as the CPU's, not the
// same sequence.
#include <cmath>

#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "random_dist.h"
#include "random_param.h"

namespace braid::op::detail {
namespace {

// SplitMix64's finalizer over the counter: consecutive counters give independent-looking bits.
__device__ inline uint64_t random_bits(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits.
__device__ inline double unit_uniform(uint64_t seed, uint64_t counter) {
  return static_cast<double>(random_bits(seed, counter) >> 11) * 0x1.0p-53;
}

template <class T>
__global__ void uniform_kernel(T* out, int64_t n, uint64_t seed, T low, T high) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const T v = static_cast<T>(low + (high - low) * static_cast<T>(unit_uniform(seed, i)));
    out[i] = v < high ? v : low;  // rounding may reach high, which [low, high) excludes
  }
}

// Box-Muller from two uniforms per element (1 - u keeps the logarithm's argument in (0, 1]).
template <class T>
__global__ void normal_kernel(T* out, int64_t n, uint64_t seed, T loc, T scale) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const double u1 = 1.0 - unit_uniform(seed, 2 * i), u2 = unit_uniform(seed, 2 * i + 1);
    const double z = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
    out[i] = static_cast<T>(loc + scale * static_cast<T>(z));
  }
}

// Integers in [low, high): low + floor(u * (high - low)).
template <class T>
__global__ void randint_kernel(T* out, int64_t n, uint64_t seed, int64_t low, int64_t range) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const auto k = static_cast<int64_t>(unit_uniform(seed, i) * static_cast<double>(range));
    out[i] = static_cast<T>(low + (k < range ? k : range - 1));
  }
}

// ---- the samplers of random_dist.h with scalar parameters ----

// Element i's own sequence of uniforms: counters i·2^24, i·2^24 + 1, ... (rejection loops draw
// far fewer).
struct Draws {
  uint64_t seed, next;

  __device__ Draws(uint64_t s, int64_t i) : seed(s), next(static_cast<uint64_t>(i) << 24) {}
  __device__ double uniform() { return unit_uniform(seed, next++); }
  __device__ double open_uniform() { return 1.0 - uniform(); }  // in (0, 1]
  __device__ double normal() { return sqrt(-2.0 * log(open_uniform())) * cospi(2.0 * uniform()); }
};

// Marsaglia and Tsang's method; shape alpha < 1 through alpha + 1 and u^(1/alpha).
__device__ double draw_gamma(Draws& d, double alpha, double beta) {
  const double boost = alpha < 1 ? pow(d.open_uniform(), 1.0 / alpha) : 1.0;
  const double a = alpha < 1 ? alpha + 1 : alpha;
  const double dd = a - 1.0 / 3, c = 1.0 / sqrt(9 * dd);
  for (;;) {
    const double x = d.normal(), t = 1 + c * x;
    if (t <= 0) continue;
    const double v = t * t * t, u = d.open_uniform();
    if (log(u) < 0.5 * x * x + dd - dd * v + dd * log(v)) return dd * v * beta * boost;
  }
}

// Knuth's products of uniforms for small means; Hörmann's transformed rejection (PTRS) otherwise.
__device__ double draw_poisson(Draws& d, double lam) {
  if (lam <= 0) return 0;
  if (lam < 10) {
    const double limit = exp(-lam);
    double p = d.uniform();
    int64_t k = 0;
    while (p > limit) {
      p *= d.uniform();
      ++k;
    }
    return static_cast<double>(k);
  }
  const double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = d.uniform() - 0.5, v = d.uniform(), us = 0.5 - fabs(u);
    const double k = floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1)) return k;
  }
}

enum class ScalarDist { Gamma, Exponential, Poisson, NegativeBinomial, GeneralizedNegativeBinomial };

// One draw with parameters (a, b) as random_dist.cc defines them.
__device__ double draw(ScalarDist dist, Draws& d, double a, double b) {
  switch (dist) {
    case ScalarDist::Gamma:
      return draw_gamma(d, a, b);
    case ScalarDist::Exponential:
      return -log(d.open_uniform()) / a;
    case ScalarDist::Poisson:
      return draw_poisson(d, a);
    case ScalarDist::NegativeBinomial:  // failures before the a-th success, success probability b
      return b >= 1 ? 0.0 : draw_poisson(d, draw_gamma(d, a, (1 - b) / b));
    default:  // mean a, dispersion b
      return b == 0 ? draw_poisson(d, a) : draw_poisson(d, draw_gamma(d, 1 / b, b * a));
  }
}

template <class T>
__global__ void scalar_dist_kernel(T* out, int64_t n, uint64_t seed, ScalarDist dist, double a, double b) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    Draws d(seed, i);
    out[i] = cuda::store_value<T>(draw(dist, d, a, b));
  }
}

Kernels scalar_dist_kernels(const std::string& name, ScalarDist dist) {
  Kernels k;
  k.takes_16bit = true;  // outputs only, written from double
  k.forward = [name, dist](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<DistParam>(pa);
    const TBlob& out = a.outputs[0];
    const int64_t n = out.size();
    const uint64_t seed = (*ctx.rng)();
    cuda::with_device_type(out.dtype, name.c_str(), [&](auto t) {
      using T = decltype(t);
      scalar_dist_kernel<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          static_cast<T*>(out.dptr), n, seed, dist, p.a, p.b);
    });
    cuda::finish(name.c_str());
  };
  return k;
}

enum class BasicDist { Uniform, Normal, Randint };

Kernels sampler_kernels(const std::string& name, BasicDist dist) {
  Kernels k;
  k.forward = [name, dist](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<SampleParam>(pa);
    check_sample_param(name, p);
    const TBlob& out = a.outputs[0];
    const int64_t n = out.size();
    const uint64_t seed = (*ctx.rng)();
    const unsigned blocks = cuda::blocks_for(n);
    if (dist == BasicDist::Randint) {
      const auto low = static_cast<int64_t>(p.a), range = static_cast<int64_t>(p.b) - low;
      BRAID_TYPE_SWITCH(out.dtype, T, name.c_str(), {
        randint_kernel<<<blocks, cuda::kThreadsPerBlock, 0, cuda::stream()>>>(out.ptr<T>(), n, seed, low, range);
      });
    } else {
      BRAID_REAL_TYPE_SWITCH(out.dtype, T, name.c_str(), {
        const T first = static_cast<T>(p.a), second = static_cast<T>(p.b);
        if (dist == BasicDist::Uniform)
          uniform_kernel<<<blocks, cuda::kThreadsPerBlock, 0, cuda::stream()>>>(out.ptr<T>(), n, seed, first, second);
        else
          normal_kernel<<<blocks, cuda::kThreadsPerBlock, 0, cuda::stream()>>>(out.ptr<T>(), n, seed, first, second);
      });
    }
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_random_gpu_kernels(Registry& r) {
  r.at("_random_uniform").gpu = sampler_kernels("_random_uniform", BasicDist::Uniform);
  r.at("_random_normal").gpu = sampler_kernels("_random_normal", BasicDist::Normal);
  r.at("_random_randint").gpu = sampler_kernels("_random_randint", BasicDist::Randint);
  const std::pair<const char*, ScalarDist> scalar[] = {
      {"gamma", ScalarDist::Gamma},
      {"exponential", ScalarDist::Exponential},
      {"poisson", ScalarDist::Poisson},
      {"negative_binomial", ScalarDist::NegativeBinomial},
      {"generalized_negative_binomial", ScalarDist::GeneralizedNegativeBinomial}};
  for (const auto& [dist, which] : scalar)
    for (const std::string& op : {cat("_random_", dist), cat("_random_", dist, "_like")})
      r.at(op).gpu = scalar_dist_kernels(op, which);
}

}  // namespace braid::op::detail
