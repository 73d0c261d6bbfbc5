// Recording: autograd's Recorder, installed on a thread while it records, builds the tape from
// what the imperative path reports.
#include "record.h"

#include "braid/base/error.h"

namespace braid::autograd::detail {
namespace {

using imperative::Access;
using imperative::BackwardFn;
using imperative::Entry;
using imperative::Node;
using imperative::NodeKind;

class TapeRecorder final : public imperative::Recorder {
 public:
  void check_writable(const NDArray& out, const char* op_name) override {
    const Entry& e = Access::entry(out);
    BRAID_CHECK(!e, "operator ", op_name, ": cannot write in place into ",
                e && e.node->kind == NodeKind::Variable ? "a variable (an array with attach_grad)"
                                                        : "an array that is part of the recorded graph",
                " while recording, as that would corrupt the gradients; write into a new array, or do it "
                "outside autograd::RecordScope (after backward)");
  }

  void record_op(const op::OpDef& def, const std::any& param, const op::AttrMap& attrs, bool training,
                 const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs,
                 int num_visible) override {
    // Outputs of ops without a gradient (argmax, comparisons, sampling) are constants.
    std::vector<Entry> parents(nargs);
    bool needs_grad = false;
    if (def.has_gradient()) {
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
    node->attrs = attrs;
    node->training = training;
    for (const auto& a : inputs) node->inputs.push_back(Access::stripped(a));
    for (const auto& o : outputs) node->outputs.push_back(Access::stripped(o));
    node->num_visible = num_visible;
    node->parents = std::move(parents);
    for (size_t k = 0; k < outputs.size(); ++k) Access::entry(outputs[k]) = {node, static_cast<int>(k)};
  }

  void record_view(const NDArray& src, const NDArray& view) override {
    const Entry& parent = Access::entry(src);
    if (!parent) return;
    auto node = std::make_shared<Node>();
    node->kind = NodeKind::View;
    node->parents = {parent};
    node->view_offset = Access::offset(view) - Access::offset(src);
    node->view_shape = view.shape();
    node->parent_shape = src.shape();
    node->parent_dtype = src.dtype();
    node->parent_ctx = src.ctx();
    Access::entry(view) = {std::move(node), 0};
  }

  bool record_function(const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                       BackwardFn fn) override {
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
};

}  // namespace

imperative::Recorder& tape_recorder() {
  static TapeRecorder recorder;  // stateless: one for every thread
  return recorder;
}

}  // namespace braid::autograd::detail
