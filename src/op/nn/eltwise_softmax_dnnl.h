#pragma once
// oneDNN float32 kernels of the layer operators: elementwise activations and softmax (vectorized
// exp, the library's threads). Primitives are created once per algorithm and shape and cached.
// Callers keep plain loops for float64 and for what oneDNN lacks.
#include <oneapi/dnnl/dnnl.hpp>

#include "nn_util.h"

namespace braid::op::detail {

/// An oneDNN elementwise function: algorithm and its alpha/beta (e.g. the negative slope of
/// eltwise_relu). For the *_use_dst_for_bwd algorithms backward reads the output, else the input.
struct DnnlEltwise {
  dnnl::algorithm alg;
  float alpha = 0, beta = 0;
};

void dnnl_eltwise_forward(const DnnlEltwise& f, const float* x, float* y, int64_t n);
void dnnl_eltwise_backward(const DnnlEltwise& f, const float* x, const float* y, const float* dy, float* dx, int64_t n);

/// Softmax (or log-softmax) along the last axis (split.inner == 1). oneDNN 2.6 vectorizes only
/// that case and only the forward pass; other axes and the backward pass are faster with the
/// loops of softmax_kernels.h.
void dnnl_softmax_forward(bool log, const float* x, float* y, const AxisSplit& s);

}  // namespace braid::op::detail
