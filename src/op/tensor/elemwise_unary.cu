// CUDA kernels of the element-wise unary ops (the CPU ones are in elemwise_unary.cc), from the
// shared math of op/math/unary_functions.h.
#include "op/common/cuda_unary.cuh"
#include "op/math/unary_functions.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

template <class F>
Kernels unary_kernels(const std::string& name) {
  Kernels k;
  k.forward = [name](const OpContext&, const std::any&, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.inputs[0].size();
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      cuda::unary_forward<F, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), n, a.req[0] == OpReq::Add);
    });
    cuda::finish(name.c_str());
  };
  k.backward = [name](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.inputs[0].size();
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      cuda::unary_backward<F, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), a.out_grads[0].ptr<T>(), a.in_grads[0].ptr<T>(), n,
          a.req[0] == OpReq::Add);
    });
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_elemwise_unary_gpu_kernels(Registry& r) {
  math::for_each_unary_op(
      [&r](const char* name, const char*, auto fn) { r.at(name).gpu = unary_kernels<decltype(fn)>(name); });
}

}  // namespace braid::op::detail
