#pragma once
// Internal: pushing the backward of an operator whose attributes are already parsed, for
// invoke_backward and autograd.
#include <any>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::nd::detail {

/// `out_grads` may hold None for outputs without a gradient (the kernel sees a null blob);
/// `req[i]` says how to store the gradient of argument i (None in_grads are skipped).
void push_backward(const op::OpDef& def, const std::any& param, bool training,
                   const std::vector<NDArray>& out_grads, const std::vector<NDArray>& inputs,
                   const std::vector<NDArray>& outputs, const std::vector<NDArray>& in_grads,
                   const std::vector<op::OpReq>& req);

}  // namespace braid::nd::detail
