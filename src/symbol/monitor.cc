#include "monitor.h"

#include <set>

#include "braid/base/error.h"

namespace braid::symbol::detail {
namespace {

// MXNet registers these (MXNET_OPERATOR_REGISTER_UNARY and its variants) without FListInputNames,
// so its monitor calls their inputs "input0", "input1", ...
const std::set<std::string>& unnamed_input_ops() {
  static const std::set<std::string> ops = {"Activation",
                                            "BlockGrad",
                                            "SoftmaxActivation",
                                            "_contrib_div_sqrt_dim",
                                            "_contrib_gradientmultiplier",
                                            "_contrib_round_ste",
                                            "_contrib_sign_ste",
                                            "_copy",
                                            "abs",
                                            "arccos",
                                            "arccosh",
                                            "arcsin",
                                            "arcsinh",
                                            "arctan",
                                            "arctanh",
                                            "cbrt",
                                            "ceil",
                                            "cos",
                                            "cosh",
                                            "degrees",
                                            "erf",
                                            "erfinv",
                                            "exp",
                                            "expm1",
                                            "fix",
                                            "floor",
                                            "gamma",
                                            "gammaln",
                                            "hard_sigmoid",
                                            "log",
                                            "log10",
                                            "log1p",
                                            "log2",
                                            "logical_not",
                                            "make_loss",
                                            "negative",
                                            "radians",
                                            "rcbrt",
                                            "reciprocal",
                                            "relu",
                                            "rint",
                                            "round",
                                            "rsqrt",
                                            "sigmoid",
                                            "sign",
                                            "sin",
                                            "sinh",
                                            "softsign",
                                            "sqrt",
                                            "square",
                                            "tan",
                                            "tanh",
                                            "trunc"};
  return ops;
}

const std::string& op_name(const Step& s) {
  BRAID_CHECK(s.def, "monitor: node '", s.name, "' was fused; a monitored executor runs unfused");
  return s.def->name;
}

}  // namespace

std::vector<std::string> monitor_input_names(const op::OpDef& def, const std::any& param, const std::string& node) {
  std::vector<std::string> names = def.list_arguments(param);
  for (const auto& aux : def.list_aux(param)) names.push_back(aux);
  const bool unnamed = unnamed_input_ops().count(def.name) > 0;
  for (size_t i = 0; i < names.size(); ++i) names[i] = node + (unnamed ? cat("_input", i) : "_" + names[i]);
  return names;
}

std::string monitor_output_name(const std::string& node, size_t count, size_t i) {
  return count == 1 ? node + "_output" : cat(node, "_output", i);
}

void monitor_inputs(const Plan& plan, const Step& s, const RunState& st) {
  if (!st.monitor_all) return;
  const std::string& op = op_name(s);
  const std::vector<std::string> names = monitor_input_names(*s.def, s.param, s.name);
  for (size_t i = 0; i < s.inputs.size() && i < names.size(); ++i) {
    const NDArray& array = st.values[s.inputs[i]];
    const Value& v = plan.values[s.inputs[i]];
    const auto& variables = v.kind == Value::Kind::Arg ? st.arg_names : st.aux_names;
    const bool variable = v.kind == Value::Kind::Arg || v.kind == Value::Kind::Aux;
    if (variable && static_cast<size_t>(v.index) < variables.size())
      st.monitor(variables[static_cast<size_t>(v.index)], op, array);
    st.monitor(names[i], op, array);
  }
}

void monitor_outputs(const Step& s, const RunState& st) {
  for (size_t i = 0; i < s.num_visible; ++i)
    st.monitor(monitor_output_name(s.name, s.num_visible, i), op_name(s), st.values[s.outputs[i]]);
}

void monitor_backward(const Step& s, const RunState& st) {
  const std::string node = s.name + "_backward";
  for (size_t i = 0; i < s.in_grads.size(); ++i)
    if (s.in_grads[i] != kNoValue)
      st.monitor(monitor_output_name(node, s.in_grads.size(), i), "_backward_" + op_name(s), st.values[s.in_grads[i]]);
}

}  // namespace braid::symbol::detail
