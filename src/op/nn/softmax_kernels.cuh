#pragma once
// Internal: CUDA softmax along the middle axis of an (outer, n, inner) view, one block per
// (outer, inner) row, shared by softmax, log_softmax, softmin, SoftmaxActivation and
// SoftmaxOutput. The same formulas and accumulation types as the CPU's (softmax_kernels.h).
#include <limits>

#include "op/common/axis_split.h"
#include "op/common/cuda_reduce.cuh"
#include "softmax_spec.h"

namespace braid::op::detail {

/// The entries of row r that take part: its length (clamped to [0, n]) where lengths are given.
__device__ inline int64_t live_entries(const int64_t* lengths, int64_t r, int64_t n) {
  return lengths ? (lengths[r] < 0 ? 0 : (lengths[r] > n ? n : lengths[r])) : n;
}

/// y (=/+=) softmax(x · factor) along the axis, or its log; with `lengths` (one per row) only
/// the first length entries of a row take part, and the rest are 0.
template <class TI, class TO>
__global__ void softmax_forward_kernel(const TI* x, TO* y, AxisSplit s, SoftmaxAcc<TI, TO> factor, bool log, bool add,
                                       const int64_t* lengths) {
  using C = SoftmaxAcc<TI, TO>;
  BRAID_BLOCK_ROW_LOOP(r, s.outer * s.inner) {
    const cuda::AxisRow row(s, r);
    const int64_t live = live_entries(lengths, r, s.n);
    C mx = -std::numeric_limits<C>::infinity();
    for (int64_t i = threadIdx.x; i < live; i += blockDim.x)
      mx = cuda::Max{}(mx, static_cast<C>(x[row.at(i)]) * factor);
    mx = cuda::block_reduce(mx, cuda::Max{});
    C sum = 0;
    for (int64_t i = threadIdx.x; i < live; i += blockDim.x)
      sum += std::exp(static_cast<C>(x[row.at(i)]) * factor - mx);
    sum = cuda::block_reduce(sum, cuda::Sum{});
    const C norm = log ? std::log(sum) : C(1) / sum;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const C z = static_cast<C>(x[row.at(i)]) * factor - mx;
      cuda::store(y[row.at(i)], add, i < live ? static_cast<TO>(log ? z - norm : std::exp(z) * norm) : TO(0));
    }
  }
}

/// dx (=/+=) the gradient from y = softmax_forward(x) and the output gradient g:
/// softmax: factor · y · (g - Σ g·y); log_softmax: factor · (g - exp(y) · Σ g).
template <class TI, class TO>
__global__ void softmax_backward_kernel(const TO* y, const TO* g, TI* dx, AxisSplit s, SoftmaxAcc<TI, TO> factor,
                                        bool log, bool add, const int64_t* lengths) {
  using C = SoftmaxAcc<TI, TO>;
  BRAID_BLOCK_ROW_LOOP(r, s.outer * s.inner) {
    const cuda::AxisRow row(s, r);
    const int64_t live = live_entries(lengths, r, s.n);
    C sum = 0;
    for (int64_t i = threadIdx.x; i < live; i += blockDim.x) {
      const int64_t j = row.at(i);
      sum += log ? static_cast<C>(g[j]) : static_cast<C>(g[j]) * y[j];
    }
    sum = cuda::block_reduce(sum, cuda::Sum{});
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const int64_t j = row.at(i);
      const C v = log ? factor * (g[j] - std::exp(static_cast<C>(y[j])) * sum) : factor * y[j] * (g[j] - sum);
      cuda::store(dx[j], add, i < live ? static_cast<TI>(v) : TI(0));
    }
  }
}

/// Launches softmax_forward_kernel on the calling worker's stream (`lengths` on the device).
template <class TI, class TO>
void launch_softmax_forward(const TI* x, TO* y, const AxisSplit& s, const SoftmaxSpec& spec, bool add,
                            const int64_t* lengths = nullptr) {
  softmax_forward_kernel<TI, TO><<<cuda::row_blocks(s.outer * s.inner), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      x, y, s, static_cast<SoftmaxAcc<TI, TO>>(spec.factor()), spec.log, add, lengths);
}

/// Launches softmax_backward_kernel on the calling worker's stream (`lengths` on the device).
template <class TI, class TO>
void launch_softmax_backward(const TO* y, const TO* g, TI* dx, const AxisSplit& s, const SoftmaxSpec& spec, bool add,
                             const int64_t* lengths = nullptr) {
  softmax_backward_kernel<TI, TO><<<cuda::row_blocks(s.outer * s.inner), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      y, g, dx, s, static_cast<SoftmaxAcc<TI, TO>>(spec.factor()), spec.log, add, lengths);
}

}  // namespace braid::op::detail
