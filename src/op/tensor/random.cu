// CUDA kernels of the sampling ops (random.cc): each call draws a 64-bit seed from the host
// generator (OpContext::rng, so nd::seed makes GPU samples reproducible too), and element i
// is a function of (seed, i) through a counter-based hash, so the threads need no state. The
// samples follow the same distributions as the CPU's, not the same sequence.
#include <cmath>

#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
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

enum class Distribution { Uniform, Normal, Randint };

Kernels sampler_kernels(const std::string& name, Distribution dist) {
  Kernels k;
  k.forward = [name, dist](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<SampleParam>(pa);
    check_sample_param(name, p);
    const TBlob& out = a.outputs[0];
    const int64_t n = out.size();
    const uint64_t seed = (*ctx.rng)();
    const unsigned blocks = cuda::blocks_for(n);
    if (dist == Distribution::Randint) {
      const auto low = static_cast<int64_t>(p.a), range = static_cast<int64_t>(p.b) - low;
      BRAID_TYPE_SWITCH(out.dtype, T, name.c_str(), {
        randint_kernel<<<blocks, cuda::kThreadsPerBlock, 0, cuda::stream()>>>(out.ptr<T>(), n, seed, low, range);
      });
    } else {
      BRAID_REAL_TYPE_SWITCH(out.dtype, T, name.c_str(), {
        const T first = static_cast<T>(p.a), second = static_cast<T>(p.b);
        if (dist == Distribution::Uniform)
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
  r.at("_random_uniform").gpu = sampler_kernels("_random_uniform", Distribution::Uniform);
  r.at("_random_normal").gpu = sampler_kernels("_random_normal", Distribution::Normal);
  r.at("_random_randint").gpu = sampler_kernels("_random_randint", Distribution::Randint);
}

}  // namespace braid::op::detail
