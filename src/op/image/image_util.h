#pragma once
// Internal: shared pieces of the image operators (MXNet's mx.nd.image.*): images are (H, W, C)
// or batches (N, H, W, C), tensors (C, H, W) or (N, C, H, W).
#include <string>

#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {

void register_image_geometry_ops(Registry& r);  // image_geometry.cc: flips, crops
void register_image_color_ops(Registry& r);     // image_color.cc: brightness, contrast, saturation, hue, lighting
void register_image_resize_op(Registry& r);     // image_resize.cc

/// An image or a batch of images seen as (n, h, w, c); n is 1 for a single image.
struct ImageDims {
  int64_t n = 1, h = 0, w = 0, c = 0;
  bool batch = false;
};

/// Reads `shape` as an HWC image (layout "HWC") or NHWC batch, or as a CHW tensor ("CHW") or
/// NCHW batch (h, w, c filled accordingly); throws naming `op` for any other rank.
ImageDims image_dims(const std::string& op, const Shape& shape, const char* layout = "HWC");

/// Makes `d` a one-input image op ("data") whose output shape is out_shape(param, input shape),
/// called once the input shape is known (it validates the input, e.g. through image_dims).
void set_image_shape(OpDef& d, std::function<Shape(const std::any& param, const Shape& in)> out_shape);

}  // namespace braid::op::detail
