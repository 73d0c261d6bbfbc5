// CUDA kernels of the element-wise unary ops and clip (the CPU ones are in elemwise_unary.cc),
// from the shared math of op/math/unary_functions.h; float16 and bfloat16 computed in float.
#include "clip_param.h"
#include "op/common/cuda_unary.cuh"
#include "op/math/unary_functions.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

template <class F>
Kernels unary_kernels(const std::string& name) {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [name](const OpContext&, const std::any&, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.inputs[0].size();
    cuda::with_float_type(a.inputs[0].dtype, name.c_str(), [&](auto t) {
      using T = decltype(t);
      cuda::unary_forward<F, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), n, a.req[0] == OpReq::Add);
    });
    cuda::finish(name.c_str());
  };
  k.backward = [name](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.inputs[0].size();
    cuda::with_float_type(a.inputs[0].dtype, name.c_str(), [&](auto t) {
      using T = decltype(t);
      cuda::unary_backward<F, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), a.out_grads[0].ptr<T>(), a.in_grads[0].ptr<T>(), n,
          a.req[0] == OpReq::Add);
    });
    cuda::finish(name.c_str());
  };
  return k;
}

template <class T>
__global__ void clip_forward(const T* x, T* y, int64_t n, T lo, T hi, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(y[i], add, math::clip(x[i], lo, hi)); }
}

template <class T>
__global__ void clip_backward(const T* x, const T* g, T* dx, int64_t n, T lo, T hi, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(dx[i], add, math::clip_passes(x[i], lo, hi) ? g[i] : T(0)); }
}

Kernels clip_kernels() {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<ClipParam>(pa);
    const int64_t n = a.inputs[0].size();
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "clip", {
      clip_forward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), n, static_cast<T>(p.a_min), static_cast<T>(p.a_max),
          a.req[0] == OpReq::Add);
    });
    cuda::finish("clip");
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<ClipParam>(pa);
    const int64_t n = a.inputs[0].size();
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "clip", {
      clip_backward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.out_grads[0].ptr<T>(), a.in_grads[0].ptr<T>(), n, static_cast<T>(p.a_min),
          static_cast<T>(p.a_max), a.req[0] == OpReq::Add);
    });
    cuda::finish("clip");
  };
  return k;
}

}  // namespace

void register_elemwise_unary_gpu_kernels(Registry& r) {
  r.at("clip").gpu = clip_kernels();
  math::for_each_unary_op(
      [&r](const char* name, const char*, auto fn) { r.at(name).gpu = unary_kernels<decltype(fn)>(name); });
}

}  // namespace braid::op::detail
