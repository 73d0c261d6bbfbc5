// CUDA kernels of the binary ops with a scalar attribute (elemwise_scalar.h; the CPU ones are in
// elemwise_scalar.cc), from the shared math of op/math/binary_functions.h: forward for every dtype
// the CPU takes, backward float32 and float64; float16 and bfloat16 in float, the scalar too.
#include "elemwise_scalar.h"
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

template <class Fn, bool Reversed, class T, class C = cuda::compute_t<T>>
__global__ void scalar_forward(const T* x, C s, T* z, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const C xi = cuda::load_value(x[i]);
    cuda::store(z[i], add, Reversed ? Fn::f(s, xi) : Fn::f(xi, s));
  }
}

template <class Fn, bool Reversed, class T, class C = cuda::compute_t<T>>
__global__ void scalar_backward(const T* x, C s, const T* z, const T* g, T* dx, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const C xi = cuda::load_value(x[i]), zi = cuda::load_value(z[i]);
    cuda::store(dx[i], add,
                static_cast<C>(cuda::load_value(g[i]) * (Reversed ? Fn::dr(s, xi, zi) : Fn::dl(xi, s, zi))));
  }
}

// The scalar attribute in the compute type of T, as the CPU converts it.
template <class T>
cuda::compute_t<T> scalar_as(const std::any& pa) {
  return static_cast<cuda::compute_t<T>>(param<ScalarParam>(pa).scalar);
}

template <class Fn, bool Reversed>
Kernels scalar_kernels(const std::string& name) {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.inputs[0].size();
    cuda::with_compute_type(a.inputs[0].dtype, name.c_str(), [&](auto t) {
      using T = decltype(t);
      scalar_forward<Fn, Reversed, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), scalar_as<T>(pa), a.outputs[0].ptr<T>(), n, a.req[0] == OpReq::Add);
    });
    cuda::finish(name.c_str());
  };
  k.backward = [name](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.inputs[0].size();
    if constexpr (Fn::differentiable) {
      cuda::with_float_type(a.inputs[0].dtype, name.c_str(), [&](auto t) {
        using T = decltype(t);
        scalar_backward<Fn, Reversed, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            a.inputs[0].ptr<T>(), scalar_as<T>(pa), a.outputs[0].ptr<T>(), a.out_grads[0].ptr<T>(),
            a.in_grads[0].ptr<T>(), n, a.req[0] == OpReq::Add);
      });
    } else if (a.req[0] == OpReq::Write) {  // comparisons: zero gradients
      fill_zero_gpu(a.in_grads[0]);
    }
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_elemwise_scalar_gpu_kernels(Registry& r) {
  for_each_scalar_op([&r](const char* name, auto fn, auto reversed) {
    r.at(name).gpu = scalar_kernels<decltype(fn), decltype(reversed)::value>(name);
  });
}

}  // namespace braid::op::detail
