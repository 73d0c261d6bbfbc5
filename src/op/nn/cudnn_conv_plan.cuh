#pragma once
// Internal: what a cuDNN convolution needs for one geometry and dtype — the descriptors of x, w,
// y and the biases, the convolution descriptor, and the algorithms cuDNN's heuristics chose for
// forward, backward-data and backward-filter — made once per worker thread and kept.
#include <cudnn.h>

#include "braid/base/dtype.h"
#include "conv_kernels.h"

namespace braid::op::detail {

struct CudnnConvPlan {
  /// Of the convolution ConvGeom describes: x (n, c, ih, iw), y (n, f, oh, ow), w (f, c/g, kh, kw),
  /// y_bias (1, f, 1, 1) for Convolution's bias; x_bias (1, c, 1, 1) for Deconvolution's, whose
  /// output is that convolution's input.
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, y_bias = nullptr, x_bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t forward_algo{};
  cudnnConvolutionBwdDataAlgo_t backward_data_algo{};
  cudnnConvolutionBwdFilterAlgo_t backward_filter_algo{};
  size_t forward_bytes = 0, backward_data_bytes = 0, backward_filter_bytes = 0;

  CudnnConvPlan() = default;
  CudnnConvPlan(const CudnnConvPlan&) = delete;
  CudnnConvPlan& operator=(const CudnnConvPlan&) = delete;
  ~CudnnConvPlan();
};

/// The calling worker's plan for geometry `g` (channels first: the caller refuses NHWC) in `dtype` (float32 or float64)
/// on the current device, made on first use; errors name `op`.
const CudnnConvPlan& cudnn_conv_plan(const ConvGeom& g, DType dtype, const char* op);

}  // namespace braid::op::detail
