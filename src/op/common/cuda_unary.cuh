#pragma once
// CUDA kernels applying an element-wise functor of op/math (f(x) and df(x, y) = dy/dx), shared by
// the element-wise unary ops and the activations. 16-bit values are computed in float.
#include "op/common/cuda_launch.cuh"

namespace braid::op::cuda {

/// y = F::f(x) (+= when `add`).
template <class F, class T>
__global__ void unary_forward(const T* x, T* y, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { store(y[i], add, F::f(load_value(x[i]))); }
}

/// dx = g · F::df(x, y) (+= when `add`).
template <class F, class T>
__global__ void unary_backward(const T* x, const T* y, const T* g, T* dx, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    store(dx[i], add, static_cast<compute_t<T>>(load_value(g[i]) * F::df(load_value(x[i]), load_value(y[i]))));
  }
}

}  // namespace braid::op::cuda
