#pragma once
// Internal: the attributes of Convolution and Deconvolution (MXNet's ConvolutionParam and
// DeconvolutionParam), their shape inference, and the kernel geometry they map to.
#include <string>
#include <vector>

#include "conv_kernels.h"
#include "op/op_util.h"

namespace braid::op::detail {

struct ConvParam {
  std::string op;  // "Convolution" or "Deconvolution", for messages
  bool transposed = false;
  Shape kernel, stride, dilate, pad;
  Shape adj, target_shape;  // Deconvolution only; target_shape all 0 when unset
  int64_t num_filter = 0, num_group = 1;
  bool no_bias = false;
  bool channels_last = false;  // layout N(D)HWC: data (N, (D,) H, W, C), weight (F, (kd,) kh, kw, C/g)
  // Set by the executor's relu fusion (OpDef::fuse_output_relu), never by an attribute.
  bool fused_relu = false;        // the output is relu(convolution)
  bool grad_before_relu = false;  // the output gradient received is already relu's input gradient

  int spatial() const { return kernel.ndim(); }
  int64_t dilated_kernel(int i) const { return dilate[i] * (kernel[i] - 1) + 1; }
  bool has_target() const;
};

/// Parses the attributes of `op` ("Convolution", or "Deconvolution" when `transposed`).
ConvParam parse_conv_param(const AttrMap& attrs, const std::string& op, bool transposed);

/// Arguments: data, weight and, unless no_bias, bias.
std::vector<std::string> conv_arguments(const ConvParam& p);

/// Shapes of data, weight, bias and output in both directions (deferred weight shapes included).
bool infer_conv_shape(const ConvParam& p, std::vector<Shape>& in, std::vector<Shape>& out);

/// Deconvolution's effective pad and adj for spatial axis i of an input of `in` pixels: from
/// target_shape when set (MXNet's InferPad), else the attributes.
std::pair<int64_t, int64_t> deconv_pad_adj(const ConvParam& p, int i, int64_t in);

/// The geometry of the (forward) convolution for data of shape `data`. For Deconvolution it is
/// the convolution whose backward-data is the deconvolution: its input is Deconvolution's output.
ConvGeom conv_geom(const ConvParam& p, const Shape& data);

}  // namespace braid::op::detail
