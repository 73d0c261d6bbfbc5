#pragma once
// Internal: the attributes of softmax, log_softmax and softmin, and SoftmaxActivation's view of
// its data, shared by their CPU (softmax.cc) and GPU (softmax.cu) kernels.
#include <optional>

#include "braid/base/dtype.h"
#include "braid/base/shape.h"
#include "op/common/axis_split.h"
#include "softmax_spec.h"

namespace braid::op::detail {

struct SoftmaxParam {
  int axis = -1;
  SoftmaxSpec spec;
  std::optional<DType> dtype;
  bool use_length = false;
};

// SoftmaxActivation's view of the data: per sample over the rest (instance), or over axis 1 at
// every position of the axes after it (channel).
inline AxisSplit activation_split(const Shape& s, bool channel) {
  if (channel) return {s[0], s[1], s.prod(2, s.ndim())};
  return {s[0], s.prod(1, s.ndim()), 1};
}

}  // namespace braid::op::detail
