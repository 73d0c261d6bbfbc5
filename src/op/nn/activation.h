#pragma once
// Internal: Activation's attribute, shared by its CPU (activation.cc) and GPU (activation.cu)
// kernels.
#include <cstddef>

namespace braid::op::detail {

struct ActivationParam {
  size_t act = 0;  // index into relu, sigmoid, tanh, softrelu, softsign
  /// relu, sigmoid and tanh differentiate from their output alone; the backward does not keep x.
  bool grad_from_output() const { return act <= 2; }
};

}  // namespace braid::op::detail
