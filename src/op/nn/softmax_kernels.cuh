#pragma once
// Internal: CUDA softmax along the middle axis of an (outer, n, inner) view, one block per
// (outer, inner) row, shared by softmax, log_softmax, softmin, SoftmaxActivation and
// SoftmaxOutput. The same formulas and accumulation types as the CPU's (softmax_kernels.h).
#include <limits>

#include "op/common/axis_split.h"
#include "op/common/cuda_reduce.cuh"
#include "softmax_spec.h"

namespace braid::op::detail {

/// y (=/+=) softmax(x · factor) along the axis, or its log.
template <class TI, class TO>
__global__ void softmax_forward_kernel(const TI* x, TO* y, AxisSplit s, SoftmaxAcc<TI, TO> factor, bool log, bool add) {
  using C = SoftmaxAcc<TI, TO>;
  BRAID_BLOCK_ROW_LOOP(r, s.outer * s.inner) {
    const cuda::AxisRow row(s, r);
    C mx = -std::numeric_limits<C>::infinity();
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) mx = cuda::Max{}(mx, static_cast<C>(x[row.at(i)]) * factor);
    mx = cuda::block_reduce(mx, cuda::Max{});
    C sum = 0;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) sum += std::exp(static_cast<C>(x[row.at(i)]) * factor - mx);
    sum = cuda::block_reduce(sum, cuda::Sum{});
    const C norm = log ? std::log(sum) : C(1) / sum;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const C z = static_cast<C>(x[row.at(i)]) * factor - mx;
      cuda::store(y[row.at(i)], add, static_cast<TO>(log ? z - norm : std::exp(z) * norm));
    }
  }
}

/// dx (=/+=) the gradient from y = softmax_forward(x) and the output gradient g:
/// softmax: factor · y · (g - Σ g·y); log_softmax: factor · (g - exp(y) · Σ g).
template <class TI, class TO>
__global__ void softmax_backward_kernel(const TO* y, const TO* g, TI* dx, AxisSplit s, SoftmaxAcc<TI, TO> factor,
                                        bool log, bool add) {
  using C = SoftmaxAcc<TI, TO>;
  BRAID_BLOCK_ROW_LOOP(r, s.outer * s.inner) {
    const cuda::AxisRow row(s, r);
    C sum = 0;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const int64_t j = row.at(i);
      sum += log ? static_cast<C>(g[j]) : static_cast<C>(g[j]) * y[j];
    }
    sum = cuda::block_reduce(sum, cuda::Sum{});
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const int64_t j = row.at(i);
      const C v = log ? factor * (g[j] - std::exp(static_cast<C>(y[j])) * sum) : factor * y[j] * (g[j] - sum);
      cuda::store(dx[j], add, static_cast<TI>(v));
    }
  }
}

/// Launches softmax_forward_kernel on the calling worker's stream.
template <class TI, class TO>
void launch_softmax_forward(const TI* x, TO* y, const AxisSplit& s, const SoftmaxSpec& spec, bool add) {
  softmax_forward_kernel<TI, TO><<<cuda::row_blocks(s.outer * s.inner), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      x, y, s, static_cast<SoftmaxAcc<TI, TO>>(spec.factor()), spec.log, add);
}

/// Launches softmax_backward_kernel on the calling worker's stream.
template <class TI, class TO>
void launch_softmax_backward(const TO* y, const TO* g, TI* dx, const AxisSplit& s, const SoftmaxSpec& spec, bool add) {
  softmax_backward_kernel<TI, TO><<<cuda::row_blocks(s.outer * s.inner), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      y, g, dx, s, static_cast<SoftmaxAcc<TI, TO>>(spec.factor()), spec.log, add);
}

}  // namespace braid::op::detail
