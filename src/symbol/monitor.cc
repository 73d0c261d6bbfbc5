#include "monitor.h"

#include "braid/base/error.h"

namespace braid::symbol::detail {
namespace {

// MXNet's output names: "<node>_output" for one, "<node>_output<i>" for several.
std::string output_name(const std::string& node, size_t count, size_t i) {
  return count == 1 ? node + "_output" : cat(node, "_output", i);
}

const std::string& op_name(const Step& s) {
  BRAID_CHECK(s.def, "monitor: node '", s.name, "' was fused; a monitored executor runs unfused");
  return s.def->name;
}

}  // namespace

void monitor_inputs(const Step& s, const RunState& st) {
  if (!st.monitor_all) return;
  std::vector<std::string> names = s.def->list_arguments(s.param);
  for (const auto& aux : s.def->list_aux(s.param)) names.push_back(aux);
  for (size_t i = 0; i < s.inputs.size() && i < names.size(); ++i)
    st.monitor(s.name + "_" + names[i], op_name(s), st.values[s.inputs[i]]);
}

void monitor_outputs(const Step& s, const RunState& st) {
  for (size_t i = 0; i < s.num_visible; ++i)
    st.monitor(output_name(s.name, s.num_visible, i), op_name(s), st.values[s.outputs[i]]);
}

void monitor_backward(const Step& s, const RunState& st) {
  const std::string node = s.name + "_backward";
  for (size_t i = 0; i < s.in_grads.size(); ++i)
    if (s.in_grads[i] != kNoValue)
      st.monitor(output_name(node, s.in_grads.size(), i), "_backward_" + op_name(s), st.values[s.in_grads[i]]);
}

}  // namespace braid::symbol::detail
