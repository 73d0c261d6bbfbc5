#include "braid/autograd/autograd.h"
#include "braid/ndarray/sparse.h"

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "imperative/tape.h"
#include "record.h"

namespace braid::autograd {

bool set_recording(bool recording) {
  return imperative::set_recorder(recording ? &detail::tape_recorder() : nullptr) != nullptr;
}
bool is_recording() { return imperative::recorder() != nullptr; }

bool set_training(bool training) { return imperative::set_training(training); }
bool is_training() { return imperative::is_training(); }

RecordScope::RecordScope(bool train_mode)
    : prev_recording_(set_recording(true)), prev_training_(set_training(train_mode)) {}
RecordScope::~RecordScope() {
  set_recording(prev_recording_);
  set_training(prev_training_);
}

PauseScope::PauseScope(bool train_mode)
    : prev_recording_(set_recording(false)), prev_training_(set_training(train_mode)) {}
PauseScope::~PauseScope() {
  set_recording(prev_recording_);
  set_training(prev_training_);
}

ModeScope::ModeScope(bool train_mode) : prev_training_(set_training(train_mode)) {}
ModeScope::~ModeScope() { set_training(prev_training_); }

void mark_variables(const std::vector<NDArray>& variables, const std::vector<NDArray>& gradients, GradReq req) {
  BRAID_CHECK(variables.size() == gradients.size(), "mark_variables: ", variables.size(), " variables but ",
              gradients.size(), " gradients");
  for (size_t i = 0; i < variables.size(); ++i) {
    const NDArray& v = variables[i];
    const NDArray& g = gradients[i];
    BRAID_CHECK(!v.is_none() && !g.is_none(), "mark_variables: variable or gradient ", i, " is None");
    BRAID_CHECK(g.shape() == v.shape(), "mark_variables: gradient ", i, " has shape ", g.shape(),
                " but the variable has ", v.shape());
    imperative::Entry& e = imperative::Access::entry(v);
    if (req == GradReq::Null) {
      e = {};
      continue;
    }
    auto node = std::make_shared<imperative::Node>();
    node->kind = imperative::NodeKind::Variable;
    node->grad = g;
    node->req = req;
    e = {std::move(node), 0};
  }
}

namespace {

imperative::Node& variable_node(const NDArray& var, const char* what) {
  BRAID_CHECK(!var.is_none(), what, ": the array is None");
  const imperative::Entry& e = imperative::Access::entry(var);
  BRAID_CHECK(e && e.node->kind == imperative::NodeKind::Variable, what, ": the array (shape ", var.shape(),
              ") is not a variable; call attach_grad first");
  return *e.node;
}

}  // namespace

bool fresh_grad(const NDArray& var) { return variable_node(var, "fresh_grad").fresh_grad; }
void set_fresh_grad(const NDArray& var, bool fresh) { variable_node(var, "set_fresh_grad").fresh_grad = fresh; }

}  // namespace braid::autograd

namespace braid {

void NDArray::attach_grad(GradReq req, StorageType grad_stype) {
  if (req == GradReq::Null) {
    imperative::Access::entry(*this) = {};  // no longer a variable: no buffer to allocate
    return;
  }
  autograd::mark_variables({*this}, {sparse::zeros(grad_stype, shape_, ctx(), dtype_)}, req);
}

NDArray NDArray::grad() const {
  const auto& e = imperative::Access::entry(*this);
  return e && e.node->kind == imperative::NodeKind::Variable ? e.node->grad : NDArray();
}

GradReq NDArray::grad_req() const {
  const auto& e = imperative::Access::entry(*this);
  return e && e.node->kind == imperative::NodeKind::Variable ? e.node->req : GradReq::Null;
}

void NDArray::backward() const { backward(NDArray()); }

void NDArray::backward(const NDArray& head_grad, bool retain_graph, bool train_mode) const {
  autograd::backward({*this}, {head_grad}, retain_graph, train_mode);
}

NDArray NDArray::detach() const {
  NDArray d = *this;
  d.slot_ = std::make_shared<imperative::Slot>();
  return d;
}

}  // namespace braid
