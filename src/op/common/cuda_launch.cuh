#pragma once
// What the CUDA kernels of src/op/**/*.cu share: a grid covering n elements with grid-stride
// loops, and running a launch to completion with its error turned into a braid::Error.
//
// Kernels run on the calling engine worker's per-thread stream and are waited for before the
// engine operation returns, so a GPU operation is complete when the engine says it is.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "braid/base/error.h"

namespace braid::op::cuda {

constexpr int kThreadsPerBlock = 256;

/// Blocks for `n` elements: enough to fill the GPU, the rest covered by grid-stride loops.
inline unsigned blocks_for(int64_t n) {
  const int64_t wanted = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, 65535));
}

inline cudaStream_t stream() { return cudaStreamPerThread; }

/// Waits for the kernels launched on stream() and throws if a launch or a kernel failed.
inline void finish(const char* op) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream());
  BRAID_CHECK(err == cudaSuccess, "operator ", op, ": CUDA kernel failed: ", cudaGetErrorString(err));
}

#define BRAID_GRID_STRIDE_LOOP(i, n)                                                     \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

/// out = v, or out += v for OpReq::Add (`add`).
template <class T>
__device__ inline void store(T& out, bool add, T v) {
  out = add ? out + v : v;
}

}  // namespace braid::op::cuda
