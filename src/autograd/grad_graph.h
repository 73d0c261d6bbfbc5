#pragma once
// Internal to autograd: gradients built from operators, for grad(create_graph=true). An op's
// registered backward is a kernel, which cannot be differentiated again; the ops listed here also
// have their gradient written as a composition of operators, so that while the backward pass
// records, the gradient is itself part of the graph and can be differentiated (MXNet's
// higher-order gradients).
#include <any>
#include <optional>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::autograd::detail {

/// The gradients of the arguments of one recorded node of `def`, from operators: `inputs` and
/// `outputs` are the node's arrays attached to the graph (their gradients flow back to the
/// node's parents and to the node itself), `out_grads` the gradients of every output. nullopt
/// when `def` has no such formula. An entry may be None where an argument gets no gradient.
std::optional<std::vector<NDArray>> gradient_from_ops(const op::OpDef& def, const std::any& param,
                                                      const std::vector<NDArray>& inputs,
                                                      const std::vector<NDArray>& outputs,
                                                      const std::vector<NDArray>& out_grads);

}  // namespace braid::autograd::detail
