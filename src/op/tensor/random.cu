// CUDA kernels of the sampling ops (random.cc, and the samplers with scalar parameters of
// random_dist.h: gamma, exponential, poisson and the negative binomials, _like forms too), on the
// counter-based draws of random_draws.h that the CPU kernels use too: each call draws a 64-bit
// seed from the host generator (OpContext::rng, so nd::seed makes GPU samples reproducible too),
// and element i is a function of (seed, i), so the threads need no state. For the distributions
// with scalar parameters it is the CPU kernels' function; uniform, normal and randint follow the
// CPU's distributions in another sequence.
#include <cmath>

#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "random_dist.h"
#include "random_draws.h"
#include "random_param.h"

namespace braid::op::detail {
namespace {

template <class T>
__global__ void uniform_kernel(T* out, int64_t n, uint64_t seed, T low, T high) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const T v = static_cast<T>(low + (high - low) * static_cast<T>(uniform_at(seed, i)));
    out[i] = v < high ? v : low;  // rounding may reach high, which [low, high) excludes
  }
}

// Box-Muller from two uniforms per element (1 - u keeps the logarithm's argument in (0, 1]).
template <class T>
__global__ void normal_kernel(T* out, int64_t n, uint64_t seed, T loc, T scale) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const double u1 = 1.0 - uniform_at(seed, 2 * i), u2 = uniform_at(seed, 2 * i + 1);
    const double z = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
    out[i] = static_cast<T>(loc + scale * static_cast<T>(z));
  }
}

// Integers in [low, high): low + floor(u * (high - low)).
template <class T>
__global__ void randint_kernel(T* out, int64_t n, uint64_t seed, int64_t low, int64_t range) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const auto k = static_cast<int64_t>(uniform_at(seed, i) * static_cast<double>(range));
    out[i] = static_cast<T>(low + (k < range ? k : range - 1));
  }
}

// ---- the samplers of random_dist.h with scalar parameters ----

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
