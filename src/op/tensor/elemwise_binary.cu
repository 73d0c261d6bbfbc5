// CUDA kernels of the binary ops, same-shape (elemwise_add, _power, _greater, ...) and with
// NumPy broadcasting (broadcast_add, ...; the CPU ones, one kernel for both, are in
// elemwise_binary.cc), from the shared math of op/math/binary_functions.h. The gradient of a
// broadcast operand sums over the output elements it was broadcast to, one thread per element
// of the operand. float16 and bfloat16 are computed in float.
#include "broadcast.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/math/binary_functions.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

template <class Fn, class T>
__global__ void binary_forward(const T* x, const T* y, T* z, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(z[i], add, Fn::f(cuda::load_value(x[i]), cuda::load_value(y[i]))); }
}

template <class Fn, class T>
__global__ void broadcast_forward(const T* x, const T* y, T* z, BroadcastLayout l, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(k, n) {
    int64_t i, j;
    l.offsets(k, i, j);
    cuda::store(z[k], add, Fn::f(cuda::load_value(x[i]), cuda::load_value(y[j])));
  }
}

// dx or dy is null where that gradient is not wanted.
template <class Fn, class T>
__global__ void binary_backward(const T* x, const T* y, const T* z, const T* g, T* dx, bool add_dx, T* dy, bool add_dy,
                                int64_t n) {
  using C = cuda::compute_t<T>;
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const C xi = cuda::load_value(x[i]), yi = cuda::load_value(y[i]), zi = cuda::load_value(z[i]);
    const C gi = cuda::load_value(g[i]);
    if (dx) cuda::store(dx[i], add_dx, static_cast<C>(gi * Fn::dl(xi, yi, zi)));
    if (dy) cuda::store(dy[i], add_dy, static_cast<C>(gi * Fn::dr(xi, yi, zi)));
  }
}

// The gradient of x (Left) or y at each of its n elements, summed over where it was broadcast.
template <class Fn, class T, bool Left>
__global__ void broadcast_backward(const T* x, const T* y, const T* z, const T* g, T* d, GradLayout l, int64_t n,
                                   int64_t summed, bool add) {
  using C = cuda::compute_t<T>;
  BRAID_GRID_STRIDE_LOOP(i, n) {
    int64_t k0, j0;
    l.offsets(0, l.nkept, i, k0, j0);
    C acc = C(0);
    for (int64_t r = 0; r < summed; ++r) {
      int64_t kr, jr;
      l.offsets(l.nkept, l.nsum, r, kr, jr);
      const int64_t k = k0 + kr, j = j0 + jr;
      const C gk = cuda::load_value(g[k]), zk = cuda::load_value(z[k]);
      acc += static_cast<C>(gk * (Left ? Fn::dl(C(cuda::load_value(x[i])), C(cuda::load_value(y[j])), zk)
                                       : Fn::dr(C(cuda::load_value(x[j])), C(cuda::load_value(y[i])), zk)));
    }
    cuda::store(d[i], add, acc);
  }
}

template <class Fn>
void forward(const std::string& name, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const TBlob &x = a.inputs[0], &y = a.inputs[1], &z = a.outputs[0];
  const int64_t n = z.size();
  const bool add = a.req[0] == OpReq::Add;
  cuda::with_compute_type(z.dtype, name.c_str(), [&](auto t) {
    using T = decltype(t);
    if (x.shape == y.shape) {
      binary_forward<Fn, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(x.ptr<T>(), y.ptr<T>(),
                                                                                                z.ptr<T>(), n, add);
    } else {
      broadcast_forward<Fn, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          x.ptr<T>(), y.ptr<T>(), z.ptr<T>(), broadcast_layout(z.shape, x.shape, y.shape, name.c_str()), n, add);
    }
  });
  cuda::finish(name.c_str());
}

template <class Fn, class T>
void broadcast_grads(const std::string& name, const BackwardArgs& a) {
  const TBlob &x = a.inputs[0], &y = a.inputs[1], &z = a.outputs[0];
  const BroadcastLayout l = broadcast_layout(z.shape, x.shape, y.shape, name.c_str());
  for (int side = 0; side < 2; ++side) {
    if (a.req[side] == OpReq::Null) continue;
    const GradLayout gl = grad_layout(l, side == 0);
    const int64_t n = a.in_grads[side].size();
    auto* kernel = side == 0 ? broadcast_backward<Fn, T, true> : broadcast_backward<Fn, T, false>;
    kernel<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        x.ptr<T>(), y.ptr<T>(), z.ptr<T>(), a.out_grads[0].ptr<T>(), a.in_grads[side].ptr<T>(), gl, n, gl.summed(),
        a.req[side] == OpReq::Add);
  }
}

template <class Fn>
void backward(const std::string& name, const BackwardArgs& a) {
  if constexpr (Fn::differentiable) {
    const TBlob &x = a.inputs[0], &y = a.inputs[1];
    cuda::with_float_type(a.outputs[0].dtype, name.c_str(), [&](auto t) {
      using T = decltype(t);
      if (x.shape == y.shape) {
        const int64_t n = a.outputs[0].size();
        T* dx = a.req[0] == OpReq::Null ? nullptr : a.in_grads[0].ptr<T>();
        T* dy = a.req[1] == OpReq::Null ? nullptr : a.in_grads[1].ptr<T>();
        binary_backward<Fn, T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            x.ptr<T>(), y.ptr<T>(), a.outputs[0].ptr<T>(), a.out_grads[0].ptr<T>(), dx, a.req[0] == OpReq::Add, dy,
            a.req[1] == OpReq::Add, n);
      } else {
        broadcast_grads<Fn, T>(name, a);
      }
    });
  } else {  // comparisons: zero gradients
    for (size_t i = 0; i < 2; ++i)
      if (a.req[i] == OpReq::Write) fill_zero_gpu(a.in_grads[i]);
  }
  cuda::finish(name.c_str());
}

template <class Fn>
Kernels binary_kernels(const std::string& name) {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [name](const OpContext&, const std::any&, const ForwardArgs& a) { forward<Fn>(name, a); };
  k.backward = [name](const OpContext&, const std::any&, const BackwardArgs& a) { backward<Fn>(name, a); };
  return k;
}

}  // namespace

void register_elemwise_binary_gpu_kernels(Registry& r) {
  math::for_each_binary_op([&r](const char* name, const char* stem, auto fn) {
    r.at(name).gpu = binary_kernels<decltype(fn)>(name);
    const std::string broadcasting = cat("broadcast_", stem);
    r.at(broadcasting).gpu = binary_kernels<decltype(fn)>(broadcasting);
  });
}

}  // namespace braid::op::detail
