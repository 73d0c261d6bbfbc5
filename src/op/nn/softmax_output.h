#pragma once
// Internal: SoftmaxOutput's attributes and the class axis they give, shared by its CPU
// (softmax_output.cc) and GPU (softmax_output.cu) kernels.
#include <string>

#include "braid/base/shape.h"
#include "op/common/axis_split.h"

namespace braid::op::detail {

struct SoftmaxOutputParam {
  double grad_scale = 1, ignore_label = -1, smooth_alpha = 0;
  bool multi_output = false, use_ignore = false, preserve_shape = false, out_grad = false;
  std::string normalization = "null";
};

// The softmax axis as an (outer, classes, inner) split: axis 1 for multi_output, the last axis
// for preserve_shape, else all but the first axis flattened.
inline AxisSplit class_split(const SoftmaxOutputParam& p, const Shape& data) {
  if (p.multi_output) return AxisSplit::around(data, 1);
  if (p.preserve_shape) return AxisSplit::around(data, data.ndim() - 1);
  return {data[0], data.size() / data[0], 1};
}

/// A label outside [0, classes) names no class: as in MXNet its row gets no target (the gradient
/// is the softmax itself). Says so on stderr, once per process, when `count` > 0.
void note_labels_outside(int64_t count, int64_t classes);

}  // namespace braid::op::detail
