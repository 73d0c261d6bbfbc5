// CUDA kernels of softmax, log_softmax, softmin and SoftmaxActivation (the CPU ones are in
// softmax.cc).
#include "nn_util.h"
#include "op/common/cuda_libs.cuh"
#include "op/register_all.h"
#include "softmax.h"
#include "softmax_kernels.cuh"

namespace braid::op::detail {
namespace {

// Runs f.template operator()<TI, TO>() for the input and output dtypes.
template <class F>
void with_types(DType in, DType out, const char* op, F&& f) {
  BRAID_REAL_TYPE_SWITCH(in, TI, op, { BRAID_REAL_TYPE_SWITCH(out, TO, op, { f.template operator()<TI, TO>(); }); });
}

template <class L>
__global__ void lengths_to_int64(const L* in, int64_t* out, int64_t n) {
  BRAID_GRID_STRIDE_LOOP(i, n) { out[i] = static_cast<int64_t>(in[i]); }
}

// With use_length, the rows' lengths (the second input, of any numeric dtype) as int64 in the
// worker's scratch memory; null without.
const int64_t* device_lengths(const SoftmaxParam& p, const std::vector<TBlob>& inputs) {
  if (!p.use_length) return nullptr;
  const TBlob& l = inputs[1];
  const int64_t n = l.size();
  auto* out = static_cast<int64_t*>(cuda::workspace(static_cast<size_t>(n) * sizeof(int64_t)));
  BRAID_TYPE_SWITCH(l.dtype, L, "softmax length", {
    lengths_to_int64<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(l.ptr<L>(), out, n);
  });
  return out;
}

Kernels softmax_kernels(const std::string& name) {
  auto split = [name](const SoftmaxParam& p, const Shape& data) {
    return AxisSplit::around(data, checked_axis(name, p.axis, data));
  };
  Kernels k;
  k.forward = [name, split](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<SoftmaxParam>(pa);
    if (a.req[0] == OpReq::Null) return;
    const AxisSplit s = split(p, a.inputs[0].shape);
    const int64_t* lengths = device_lengths(p, a.inputs);
    with_types(a.inputs[0].dtype, a.outputs[0].dtype, name.c_str(), [&]<class TI, class TO>() {
      launch_softmax_forward(a.inputs[0].ptr<TI>(), a.outputs[0].ptr<TO>(), s, p.spec, a.req[0] == OpReq::Add, lengths);
    });
    cuda::finish(name.c_str());
  };
  k.backward = [name, split](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<SoftmaxParam>(pa);
    if (p.use_length && a.req[1] == OpReq::Write)  // lengths have no gradient
      cudaMemsetAsync(a.in_grads[1].dptr, 0,
                      static_cast<size_t>(a.in_grads[1].size()) * dtype_size(a.in_grads[1].dtype), cuda::stream());
    if (a.req[0] == OpReq::Null) return cuda::finish(name.c_str());
    const AxisSplit s = split(p, a.outputs[0].shape);
    const int64_t* lengths = device_lengths(p, a.inputs);
    with_types(a.in_grads[0].dtype, a.outputs[0].dtype, name.c_str(), [&]<class TI, class TO>() {
      launch_softmax_backward(a.outputs[0].ptr<TO>(), a.out_grads[0].ptr<TO>(), a.in_grads[0].ptr<TI>(), s, p.spec,
                              a.req[0] == OpReq::Add, lengths);
    });
    cuda::finish(name.c_str());
  };
  return k;
}

Kernels softmax_activation_kernels() {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const AxisSplit s = activation_split(a.inputs[0].shape, std::any_cast<bool>(pa));
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "SoftmaxActivation", {
      launch_softmax_forward(a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), s, SoftmaxSpec{}, a.req[0] == OpReq::Add);
    });
    cuda::finish("SoftmaxActivation");
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const AxisSplit s = activation_split(a.outputs[0].shape, std::any_cast<bool>(pa));
    BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, "SoftmaxActivation", {
      launch_softmax_backward(a.outputs[0].ptr<T>(), a.out_grads[0].ptr<T>(), a.in_grads[0].ptr<T>(), s, SoftmaxSpec{},
                              a.req[0] == OpReq::Add);
    });
    cuda::finish("SoftmaxActivation");
  };
  return k;
}

}  // namespace

void register_softmax_gpu_kernels(Registry& r) {
  for (const char* name : {"softmax", "log_softmax", "softmin"}) r.at(name).gpu = softmax_kernels(name);
  r.at("SoftmaxActivation").gpu = softmax_activation_kernels();
}

}  // namespace braid::op::detail
