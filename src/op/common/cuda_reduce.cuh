#pragma once
// Reductions within one CUDA block, for kernels that give each block one row (softmax,
// normalization): every thread contributes a value and receives the block's total.
#include "op/common/axis_split.h"
#include "op/common/cuda_launch.cuh"

namespace braid::op::cuda {

struct Sum {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct Max {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a > b ? a : b;
  }
};

/// op over the `v` of every thread of a block of kThreadsPerBlock threads (a power of two),
/// returned to all of them. Every thread of the block must call it.
template <class T, class Op>
__device__ T block_reduce(T v, Op op) {
  __shared__ T buf[kThreadsPerBlock];
  buf[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = kThreadsPerBlock / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) buf[threadIdx.x] = op(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  const T total = buf[0];
  __syncthreads();  // before the next call overwrites buf
  return total;
}

/// Row r (in [0, outer·inner)) of an (outer, n, inner) view: the n elements along the axis at
/// one (outer, inner) position, which one block reduces.
struct AxisRow {
  int64_t base, step;
  __device__ AxisRow(const detail::AxisSplit& s, int64_t r)
      : base(r / s.inner * s.n * s.inner + r % s.inner), step(s.inner) {}
  __device__ int64_t at(int64_t i) const { return base + i * step; }
};

/// Blocks for `rows` rows, one block each (rows past the grid are taken by grid-stride loops).
inline unsigned row_blocks(int64_t rows) { return static_cast<unsigned>(std::clamp<int64_t>(rows, 1, 65535)); }

#define BRAID_BLOCK_ROW_LOOP(r, rows) for (int64_t r = blockIdx.x; r < (rows); r += gridDim.x)

}  // namespace braid::op::cuda
