#pragma once
// Internal: clip's parameter, shared by its CPU (elemwise_unary.cc) and GPU (elemwise_unary.cu)
// kernels.

namespace braid::op::detail {

struct ClipParam {
  double a_min = 0, a_max = 0;
};

}  // namespace braid::op::detail
