// CUDA kernels of LinearRegressionOutput, MAERegressionOutput and LogisticRegressionOutput (the
// CPU ones are in regression_output.cc), from the math they share (regression_output.h).
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "regression_output.h"

namespace braid::op::detail {
namespace {

template <class T>
__global__ void regression_forward(RegressionKind kind, const T* x, T* y, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(y[i], add, regression_output(kind, x[i])); }
}

template <class T>
__global__ void regression_backward(RegressionKind kind, const T* out, const T* label, T* dx, T scale, int64_t n,
                                    bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(dx[i], add, regression_loss_grad(kind, out[i], label[i]) * scale); }
}

Kernels regression_kernels(const std::string& name, RegressionKind kind) {
  Kernels k;
  k.forward = [name, kind](const OpContext&, const std::any&, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.inputs[0].size();
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      regression_forward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          kind, a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), n, a.req[0] == OpReq::Add);
    });
    cuda::finish(name.c_str());
  };
  // The output gradient is not read: the layer is the loss.
  k.backward = [name, kind](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const TBlob& label = a.inputs[1];
    if (a.req[1] == OpReq::Write)  // labels have no gradient
      cudaMemsetAsync(a.in_grads[1].dptr, 0,
                      static_cast<size_t>(a.in_grads[1].size()) * dtype_size(a.in_grads[1].dtype), cuda::stream());
    if (a.req[0] != OpReq::Null) {
      const int64_t n = a.inputs[0].size();
      BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
        regression_backward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            kind, a.outputs[0].ptr<T>(), label.ptr<T>(), a.in_grads[0].ptr<T>(),
            static_cast<T>(regression_scale(param<RegressionParam>(pa), label.shape)), n, a.req[0] == OpReq::Add);
      });
    }
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_regression_output_gpu_kernels(Registry& r) {
  for_each_regression_op(
      [&r](const char* name, RegressionKind kind, const char*) { r.at(name).gpu = regression_kernels(name, kind); });
}

}  // namespace braid::op::detail
