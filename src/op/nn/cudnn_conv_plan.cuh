#pragma once
// Internal: what a cuDNN convolution needs for one geometry and dtype — the descriptors of x, w
// and y, the convolution descriptor, and the algorithms cuDNN's heuristics chose for
// forward, backward-data and backward-filter — made once per worker thread and kept.
#include <cudnn.h>

#include "braid/base/dtype.h"
#include "conv_kernels.h"

namespace braid::op::detail {

struct CudnnConvPlan {
  /// Of the convolution ConvGeom describes: x (n, c, ih, iw), y (n, f, oh, ow), w (f, c/g, kh, kw).
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
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

/// The calling worker's plan for geometry `g` (channels first: the caller refuses NHWC) in `dtype`
/// (float32, float64, float16 or bfloat16) on the current device, made on first use; errors name
/// `op`.
const CudnnConvPlan& cudnn_conv_plan(const ConvGeom& g, DType dtype, const char* op);

}  // namespace braid::op::detail
