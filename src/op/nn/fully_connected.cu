// CUDA kernels of FullyConnected (the CPU ones are in fully_connected.cc): the products on
// cuBLAS, the bias and its gradient as row kernels; float16 and bfloat16 on tensor cores.
#include "fully_connected.h"
#include "op/common/cublas_gemm.cuh"
#include "op/common/cuda_rows.cuh"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "FullyConnected";

template <class T>
void fc_forward(const FCParam& p, const ForwardArgs& a) {
  const OpReq req = a.req[0];
  if (req == OpReq::Null) return;
  const FCDims d(p, a.inputs[0].shape);
  T* y = a.outputs[0].ptr<T>();
  bool accumulate = req == OpReq::Add;
  if (!p.no_bias) {  // the bias rows go in first; the product is then added to them
    const int64_t n = d.rows * d.hidden;
    cuda::broadcast_row<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        a.inputs[2].ptr<T>(), y, d.rows, d.hidden, accumulate);
    accumulate = true;
  }
  // y (rows × hidden) = x (rows × in) · wᵀ, w stored (hidden × in)
  cuda::gemm_batched<T>(GemmDims{false, true, d.rows, d.hidden, d.in_units}, 1, a.inputs[0].ptr<T>(), 0,
                        a.inputs[1].ptr<T>(), 0, y, 0, accumulate, kName);
}

template <class T>
void fc_backward(const FCParam& p, const BackwardArgs& a) {
  const FCDims d(p, a.inputs[0].shape);
  const T* dy = a.out_grads[0].ptr<T>();
  if (a.req[0] != OpReq::Null)  // dx (rows × in) = dy · w
    cuda::gemm_batched<T>(GemmDims{false, false, d.rows, d.in_units, d.hidden}, 1, dy, 0, a.inputs[1].ptr<T>(), 0,
                          a.in_grads[0].ptr<T>(), 0, a.req[0] == OpReq::Add, kName);
  if (a.req[1] != OpReq::Null)  // dw (hidden × in) = dyᵀ · x
    cuda::gemm_batched<T>(GemmDims{true, false, d.hidden, d.in_units, d.rows}, 1, dy, 0, a.inputs[0].ptr<T>(), 0,
                          a.in_grads[1].ptr<T>(), 0, a.req[1] == OpReq::Add, kName);
  if (!p.no_bias && a.req[2] != OpReq::Null)  // db = the column sums of dy
    cuda::column_sums<T><<<cuda::blocks_for(d.hidden), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        dy, a.in_grads[2].ptr<T>(), d.rows, d.hidden, a.req[2] == OpReq::Add);
}

}  // namespace

void register_fully_connected_gpu_kernels(Registry& r) {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [](const OpContext&, const std::any& p, const ForwardArgs& a) {
    cuda::with_float_type(a.inputs[0].dtype, kName, [&](auto t) { fc_forward<decltype(t)>(param<FCParam>(p), a); });
    cuda::finish(kName);
  };
  k.backward = [](const OpContext&, const std::any& p, const BackwardArgs& a) {
    cuda::with_float_type(a.inputs[0].dtype, kName, [&](auto t) { fc_backward<decltype(t)>(param<FCParam>(p), a); });
    cuda::finish(kName);
  };
  r.at(kName).gpu = k;
}

}  // namespace braid::op::detail
