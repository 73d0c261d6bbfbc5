// CUDA kernels of the same-shape binary ops (elemwise_add, _power, _greater, ...; the CPU ones,
// which also broadcast, are in elemwise_binary.cc), from the shared math of
// op/math/binary_functions.h. Their broadcast_* twins have no GPU kernels yet.
#include "op/common/cuda_launch.cuh"
#include "op/math/binary_functions.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

template <class Fn, class T>
__global__ void binary_forward(const T* x, const T* y, T* z, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(z[i], add, Fn::f(x[i], y[i])); }
}

// dx or dy is null where that gradient is not wanted.
template <class Fn, class T>
__global__ void binary_backward(const T* x, const T* y, const T* z, const T* g, T* dx, bool add_dx, T* dy, bool add_dy,
                                int64_t n) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    if (dx) cuda::store(dx[i], add_dx, static_cast<T>(g[i] * Fn::dl(x[i], y[i], z[i])));
    if (dy) cuda::store(dy[i], add_dy, static_cast<T>(g[i] * Fn::dr(x[i], y[i], z[i])));
  }
}

void check_same_shapes(const std::string& name, const TBlob& l, const TBlob& r) {
  BRAID_CHECK(l.shape == r.shape, "operator ", name, " on a GPU needs inputs of one shape, got ", l.shape, " and ",
              r.shape);
}

template <class Fn>
Kernels binary_kernels(const std::string& name) {
  Kernels k;
  k.forward = [name](const OpContext&, const std::any&, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    check_same_shapes(name, a.inputs[0], a.inputs[1]);
    const int64_t n = a.outputs[0].size();
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, name.c_str(), {
      binary_forward<Fn, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.inputs[1].ptr<T>(), a.outputs[0].ptr<T>(), n, a.req[0] == OpReq::Add);
    });
    cuda::finish(name.c_str());
  };
  k.backward = [name](const OpContext&, const std::any&, const BackwardArgs& a) {
    const int64_t n = a.outputs[0].size();
    if constexpr (Fn::differentiable) {
      BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, name.c_str(), {
        T* dx = a.req[0] == OpReq::Null ? nullptr : a.in_grads[0].ptr<T>();
        T* dy = a.req[1] == OpReq::Null ? nullptr : a.in_grads[1].ptr<T>();
        binary_backward<Fn, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            a.inputs[0].ptr<T>(), a.inputs[1].ptr<T>(), a.outputs[0].ptr<T>(), a.out_grads[0].ptr<T>(), dx,
            a.req[0] == OpReq::Add, dy, a.req[1] == OpReq::Add, n);
      });
    } else {  // comparisons: zero gradients
      for (size_t i = 0; i < 2; ++i)
        if (a.req[i] == OpReq::Write)
          cudaMemsetAsync(a.in_grads[i].dptr, 0, a.in_grads[i].size() * dtype_size(a.in_grads[i].dtype),
                          cuda::stream());
    }
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_elemwise_binary_gpu_kernels(Registry& r) {
  math::for_each_binary_op(
      [&r](const char* name, const char*, auto fn) { r.at(name).gpu = binary_kernels<decltype(fn)>(name); });
}

}  // namespace braid::op::detail
