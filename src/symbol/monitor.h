#pragma once
// Internal: MXNet's monitor callback on a plan's run. A monitored run pushes its steps one by one
// and hands the callback each step's arrays under the names MXNet's executor gives them, between
// the pushes: what the callback pushes to read an array runs before a later step reuses its
// buffer.
#include "exec_plan.h"
#include "run_state.h"

namespace braid::symbol::detail {

/// The names MXNet's monitor gives the inputs of node `node`: "<node>_<argument>" (aux states
/// last), or "<node>_input<i>" for the operators MXNet registers without input names (the
/// element-wise unary family, Activation, BlockGrad, make_loss...).
std::vector<std::string> monitor_input_names(const op::OpDef& def, const std::any& param, const std::string& node);
/// "<node>_output" for a node of one output, "<node>_output<i>" of several.
std::string monitor_output_name(const std::string& node, size_t count, size_t i);

/// Before forward step `s` runs: its arguments and aux states, "<node>_<argument>" (monitor_all),
/// each bound variable first under its own name where the state knows the names.
void monitor_inputs(const Plan& plan, const Step& s, const RunState& st);
/// After it is pushed: its visible outputs, "<node>_output", or "<node>_output<i>" for several.
void monitor_outputs(const Step& s, const RunState& st);
/// After the backward of `s` is pushed: the gradients of its arguments,
/// "<node>_backward_output", or "<node>_backward_output<i>" for several.
void monitor_backward(const Step& s, const RunState& st);

}  // namespace braid::symbol::detail
