// Recording: what the imperative path calls while autograd::is_recording().
#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "node.h"

namespace braid::autograd::detail {

Slot& Access::slot(const NDArray& a) {
  BRAID_CHECK(a.slot_, "autograd: the array is None or internal (saved on the tape)");
  return *a.slot_;
}

NDArray Access::stripped(const NDArray& a) {
  NDArray s = a;
  s.slot_ = nullptr;
  return s;
}

void record_op(const op::OpDef& def, const std::any& param, bool training,
               const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs,
               int num_visible) {
  // Outputs of ops without a gradient (argmax, comparisons, sampling) are constants.
  std::vector<Entry> parents(nargs);
  bool needs_grad = false;
  if (def.backward) {
    for (size_t i = 0; i < nargs; ++i) {
      parents[i] = Access::entry(inputs[i]);
      needs_grad = needs_grad || static_cast<bool>(parents[i]);
    }
  }
  if (!needs_grad) {
    for (const auto& o : outputs) Access::entry(o) = {};
    return;
  }
  auto node = std::make_shared<Node>();
  node->kind = NodeKind::Op;
  node->def = &def;
  node->param = param;
  node->training = training;
  for (const auto& a : inputs) node->inputs.push_back(Access::stripped(a));
  for (const auto& o : outputs) node->outputs.push_back(Access::stripped(o));
  node->num_visible = num_visible;
  node->parents = std::move(parents);
  for (size_t k = 0; k < outputs.size(); ++k) Access::entry(outputs[k]) = {node, static_cast<int>(k)};
}

bool needs_grad(const NDArray& a) { return static_cast<bool>(Access::entry(a)); }

bool record_function(const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs, BackwardFn fn) {
  if (!autograd::is_recording()) return false;
  std::vector<Entry> parents;
  bool any = false;
  for (const auto& a : inputs) {
    parents.push_back(Access::entry(a));
    any = any || static_cast<bool>(parents.back());
  }
  if (!any) return false;
  auto node = std::make_shared<Node>();
  node->kind = NodeKind::Function;
  for (const auto& o : outputs) node->outputs.push_back(Access::stripped(o));
  node->num_visible = static_cast<int>(outputs.size());
  node->parents = std::move(parents);
  node->backward_fn = std::move(fn);
  for (size_t k = 0; k < outputs.size(); ++k) Access::entry(outputs[k]) = {node, static_cast<int>(k)};
  return true;
}

void check_writable(const NDArray& out, const char* op_name) {
  const Entry& e = Access::entry(out);
  BRAID_CHECK(!e, "operator ", op_name, ": cannot write in place into ",
              e && e.node->kind == NodeKind::Variable ? "a variable (an array with attach_grad)"
                                                       : "an array that is part of the recorded graph",
              " while recording, as that would corrupt the gradients; write into a new array, or do it "
              "outside autograd::RecordScope (after backward)");
}

void record_view(const NDArray& src, const NDArray& view) {
  const Entry& parent = Access::entry(src);
  if (!parent) return;
  auto node = std::make_shared<Node>();
  node->kind = NodeKind::View;
  node->parents = {parent};
  node->view_offset = Access::offset(view) - Access::offset(src);
  node->parent_shape = src.shape();
  node->parent_dtype = src.dtype();
  node->parent_ctx = src.ctx();
  Access::entry(view) = {std::move(node), 0};
}

}  // namespace braid::autograd::detail
