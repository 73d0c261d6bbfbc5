// CUDA kernels of Embedding (the CPU ones are in embedding.cc): the indices (any numeric dtype)
// become clipped row numbers first; the forward copies rows, the backward adds the output
// gradient's rows into the weight's gradient with atomics (indices may repeat).
#include "embedding.h"
#include "nn_util.h"
#include "op/common/cuda_launch.cuh"
#include "op/common/cuda_libs.cuh"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "Embedding";

template <class I>
__global__ void rows_kernel(const I* indices, int64_t* rows, int64_t n, int64_t input_dim) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const auto r = static_cast<int64_t>(indices[i]);
    rows[i] = r < 0 ? 0 : r < input_dim ? r : input_dim - 1;  // clipped, as MXNet's kernel does
  }
}

// The weight row of every index, in the worker's scratch memory (valid until its next use).
const int64_t* weight_rows(const TBlob& data, int64_t input_dim) {
  auto* rows = static_cast<int64_t*>(cuda::workspace(data.size() * sizeof(int64_t)));
  BRAID_TYPE_SWITCH(data.dtype, I, "Embedding indices", {
    rows_kernel<I><<<cuda::blocks_for(data.size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        data.ptr<I>(), rows, data.size(), input_dim);
  });
  return rows;
}

template <class T>
__global__ void lookup_kernel(const int64_t* rows, const T* w, T* y, int64_t n, int64_t dim, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n * dim) { cuda::store(y[i], add, w[rows[i / dim] * dim + i % dim]); }
}

template <class T>
__global__ void scatter_add_kernel(const int64_t* rows, const T* g, T* dw, int64_t n, int64_t dim) {
  BRAID_GRID_STRIDE_LOOP(i, n * dim) { atomicAdd(&dw[rows[i / dim] * dim + i % dim], g[i]); }
}

void forward(const OpContext&, const std::any& pa, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const auto& p = param<EmbeddingParam>(pa);
  const int64_t n = a.inputs[0].size();
  const int64_t* rows = weight_rows(a.inputs[0], p.input_dim);
  BRAID_REAL_TYPE_SWITCH(a.inputs[1].dtype, T, kName, {
    lookup_kernel<T><<<cuda::blocks_for(n * p.output_dim), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        rows, a.inputs[1].ptr<T>(), a.outputs[0].ptr<T>(), n, p.output_dim, a.req[0] == OpReq::Add);
  });
  cuda::finish(kName);
}

void backward(const OpContext&, const std::any& pa, const BackwardArgs& a) {
  const auto& p = param<EmbeddingParam>(pa);
  auto zero = [](const TBlob& b) { cudaMemsetAsync(b.dptr, 0, b.size() * dtype_size(b.dtype), cuda::stream()); };
  if (a.req[0] == OpReq::Write) zero(a.in_grads[0]);  // the indices have no gradient
  if (a.req[1] != OpReq::Null) {
    if (a.req[1] == OpReq::Write) zero(a.in_grads[1]);
    const int64_t n = a.inputs[0].size();
    const int64_t* rows = weight_rows(a.inputs[0], p.input_dim);
    BRAID_REAL_TYPE_SWITCH(a.inputs[1].dtype, T, kName, {
      scatter_add_kernel<T><<<cuda::blocks_for(n * p.output_dim), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          rows, a.out_grads[0].ptr<T>(), a.in_grads[1].ptr<T>(), n, p.output_dim);
    });
  }
  cuda::finish(kName);
}

}  // namespace

void register_embedding_gpu_kernels(Registry& r) { r.at(kName).gpu = Kernels{forward, backward}; }

}  // namespace braid::op::detail
