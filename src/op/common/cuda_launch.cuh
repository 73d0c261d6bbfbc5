#pragma once
// What the CUDA kernels of src/op/**/*.cu share: a grid covering n elements with grid-stride
// loops, the stream to launch on, and a launch's error turned into a braid::Error.
//
// Kernels run on the calling engine worker's stream (each GPU's compute worker has its own) and
// are not waited for: operations on one GPU are ordered by that stream, and whatever reads their
// results from elsewhere waits for it (gpu_runtime::synchronize, docs/gpu.md). A failing kernel
// is reported there, or at the operation itself with CUDA_LAUNCH_BLOCKING=1.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "braid/base/error.h"
#include "braid/device/gpu.h"
#include "op/common/cuda_dtype.cuh"

namespace braid::op::cuda {

constexpr int kThreadsPerBlock = 256;

/// Blocks for `n` elements: enough to fill the GPU, the rest covered by grid-stride loops.
inline unsigned blocks_for(int64_t n) {
  const int64_t wanted = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, 65535));
}

inline cudaStream_t stream() { return static_cast<cudaStream_t>(gpu_runtime::current_stream()); }

/// Throws if launching the operator's kernels failed (or an earlier kernel did).
inline void finish(const char* op) {
  const cudaError_t err = cudaGetLastError();
  BRAID_CHECK(err == cudaSuccess, "operator ", op, ": CUDA kernel failed: ", cudaGetErrorString(err));
}

/// finish(), then waits for everything queued on stream(): for the rare kernel that reads a
/// result back to the host (a count, an error flag). It stalls the queue and cannot be captured
/// into a CUDA graph, so keep it off the common paths.
inline void wait(const char* op) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream());
  BRAID_CHECK(err == cudaSuccess, "operator ", op, ": CUDA kernel failed: ", cudaGetErrorString(err));
}

#define BRAID_GRID_STRIDE_LOOP(i, n)                                                     \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

/// out = v, or out += v for OpReq::Add (`add`); v in out's compute type (cuda_dtype.cuh), a
/// 16-bit out rounded once.
template <class T, class V>
__device__ inline void store(T& out, bool add, V v) {
  out = store_value<T>(add ? load_value(out) + v : v);
}

}  // namespace braid::op::cuda
