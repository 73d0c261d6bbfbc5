// CUDA kernels of L2Normalization (the CPU ones are in l2_normalization.cc): one block per norm
// (the n elements of an (outer, n, inner) view sharing it) reduces in double and applies it.
#include "l2_normalization.h"
#include "nn_util.h"
#include "op/common/cuda_reduce.cuh"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "L2Normalization";

// norm[r] = sqrt(Σ x² + eps) over row r (norm may be null); y = x / norm.
template <class T>
__global__ void l2_forward(const T* x, T* y, T* norm, AxisSplit s, double eps, OpReq req) {
  BRAID_BLOCK_ROW_LOOP(r, s.outer * s.inner) {
    const cuda::AxisRow row(s, r);
    double sq = 0;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const double v = x[row.at(i)];
      sq += v * v;
    }
    sq = cuda::block_reduce(sq, cuda::Sum{});
    const T nv = static_cast<T>(sqrt(sq + eps));
    if (norm && threadIdx.x == 0) norm[r] = nv;
    if (req == OpReq::Null) continue;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x)
      cuda::store(y[row.at(i)], req == OpReq::Add, static_cast<T>(x[row.at(i)] / nv));
  }
}

// dx = (dy - y · Σ dy·y) / norm, the sum over the row.
template <class T>
__global__ void l2_backward(const T* y, const T* norm, const T* dy, T* dx, AxisSplit s, bool add) {
  BRAID_BLOCK_ROW_LOOP(r, s.outer * s.inner) {
    const cuda::AxisRow row(s, r);
    double dot = 0;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) dot += static_cast<double>(dy[row.at(i)]) * y[row.at(i)];
    dot = cuda::block_reduce(dot, cuda::Sum{});
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const int64_t k = row.at(i);
      cuda::store(dx[k], add, static_cast<T>((dy[k] - y[k] * dot) / norm[r]));
    }
  }
}

void forward(const OpContext&, const std::any& pa, const ForwardArgs& a) {
  const auto& p = param<L2NormParam>(pa);
  const AxisSplit s = l2_split(p.mode, a.inputs[0].shape);
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, {
    l2_forward<T><<<cuda::row_blocks(s.outer * s.inner), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), writes_hidden(a, 1) ? a.outputs[1].ptr<T>() : nullptr, s, p.eps,
        a.req[0]);
  });
  cuda::finish(kName);
}

void backward(const OpContext&, const std::any& pa, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const AxisSplit s = l2_split(param<L2NormParam>(pa).mode, a.inputs[0].shape);
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, {
    l2_backward<T><<<cuda::row_blocks(s.outer * s.inner), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        a.outputs[0].ptr<T>(), a.outputs[1].ptr<T>(), a.out_grads[0].ptr<T>(), a.in_grads[0].ptr<T>(), s,
        a.req[0] == OpReq::Add);
  });
  cuda::finish(kName);
}

}  // namespace

void register_l2_normalization_gpu_kernels(Registry& r) { r.at(kName).gpu = Kernels{forward, backward}; }

}  // namespace braid::op::detail
