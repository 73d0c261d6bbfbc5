// CUDA kernels of Activation (the CPU ones are in activation.cc), from the shared math of
// op/math/unary_functions.h; float16 and bfloat16 computed in float.
#include "activation.h"
#include "op/common/cuda_unary.cuh"
#include "op/math/unary_functions.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

// Calls f(Functor{}) with the math functor of act_type `act` (activation.h's order).
template <class F>
void with_math_act(size_t act, F&& f) {
  switch (act) {
    case 0:
      return f(math::Relu{});
    case 1:
      return f(math::Sigmoid{});
    case 2:
      return f(math::Tanh{});
    case 3:
      return f(math::Softrelu{});
    default:
      return f(math::Softsign{});
  }
}

void forward(const OpContext&, const std::any& pa, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const int64_t n = a.outputs[0].size();
  with_math_act(param<ActivationParam>(pa).act, [&](auto fn) {
    cuda::with_float_type(a.inputs[0].dtype, "Activation", [&](auto t) {
      using T = decltype(t);
      cuda::unary_forward<decltype(fn), T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), n, a.req[0] == OpReq::Add);
    });
  });
  cuda::finish("Activation");
}

void backward(const OpContext&, const std::any& pa, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const ActivationParam& p = param<ActivationParam>(pa);
  const int64_t n = a.outputs[0].size();
  with_math_act(p.act, [&](auto fn) {
    cuda::with_float_type(a.outputs[0].dtype, "Activation", [&](auto t) {
      using T = decltype(t);
      const T* y = a.outputs[0].ptr<T>();
      // Without x, y stands in for it: sigmoid's and tanh's df ignore x, and relu's tests x > 0,
      // which holds exactly where y > 0.
      const T* x = p.grad_from_output() ? y : a.inputs[0].ptr<T>();
      cuda::unary_backward<decltype(fn), T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          x, y, a.out_grads[0].ptr<T>(), a.in_grads[0].ptr<T>(), n, a.req[0] == OpReq::Add);
    });
  });
  cuda::finish("Activation");
}

}  // namespace

void register_activation_gpu_kernels(Registry& r) {
  r.at("Activation").gpu = Kernels{forward, backward, /*takes_16bit=*/true};
}

}  // namespace braid::op::detail
