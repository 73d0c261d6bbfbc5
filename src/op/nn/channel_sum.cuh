#pragma once
// Internal: per-channel sums on the GPU for the layer kernels (BatchNorm's statistics, prelu's
// gamma gradient): one block per channel c of an (outer, n, inner) view, in double as the CPU
// kernels sum.
#include "op/common/axis_split.h"
#include "op/common/cuda_reduce.cuh"

namespace braid::op::detail {

/// Element t of channel c, t in [0, outer·inner).
__device__ inline int64_t channel_element(const AxisSplit& s, int64_t c, int64_t t) {
  return (t / s.inner * s.n + c) * s.inner + t % s.inner;
}

/// Σ f(i) over the elements i of channel c, in double, returned to every thread of the block
/// (all of which must call it).
template <class F>
__device__ double channel_sum(const AxisSplit& s, int64_t c, F f) {
  double r = 0;
  for (int64_t t = threadIdx.x; t < s.outer * s.inner; t += blockDim.x) r += f(channel_element(s, c, t));
  return cuda::block_reduce(r, cuda::Sum{});
}

}  // namespace braid::op::detail
