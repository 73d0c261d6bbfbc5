#pragma once
// Internal: the backward of operators whose gradient is zero by definition (MXNet's
// MakeZeroGradNodes: argmax, one_hot, shape_array, zeros_like, ...).
#include <any>

#include "braid/op/op_def.h"

namespace braid::op::detail {

/// Zeros into every input gradient to be written; nothing to add where req is Add.
void zero_backward(const OpContext&, const std::any&, const BackwardArgs& a);

}  // namespace braid::op::detail
