#include "graph_tracer.h"

#include <algorithm>
#include <cctype>

#include "braid/base/error.h"
#include "py_repr.h"

namespace braid::gluon::detail {

namespace {
thread_local GraphTracer* t_current = nullptr;
}  // namespace

GraphTracer::GraphTracer(const std::vector<NDArray>& inputs, const ParameterDict& params, const std::string& prefix)
    : prev_(imperative::set_tracer(this)) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = inputs.size() == 1 ? "data" : cat("data", i);
    input_names_.push_back(name);
    known_.emplace_back(inputs[i], Symbol::Variable(name).outputs()[0]);
  }
  for (const auto& [name, p] : params) params_.push_back(p);
  scopes_.push_back(Scope{prefix, false, {}});
  t_current = this;
}

GraphTracer::~GraphTracer() {
  imperative::set_tracer(prev_);
  t_current = nullptr;
}

GraphTracer* GraphTracer::current() { return t_current; }

void GraphTracer::push_scope(const std::string& prefix) { scopes_.push_back(Scope{prefix, false, {}}); }
void GraphTracer::pop_scope() { scopes_.pop_back(); }

std::string GraphTracer::next_name(const std::string& op) {
  Scope& s = scopes_.back();
  if (!s.used_fwd) {
    s.used_fwd = true;
    return s.prefix + "fwd";
  }
  std::string hint = op;
  std::transform(hint.begin(), hint.end(), hint.begin(), [](unsigned char c) { return std::tolower(c); });
  return cat(s.prefix, hint, s.counters[hint]++);
}

symbol::Entry GraphTracer::lookup(const NDArray& a) {
  for (auto it = known_.rbegin(); it != known_.rend(); ++it)
    if (it->first.same_as(a)) return it->second;
  for (const auto& p : params_) {
    if (!p->initialized()) continue;
    for (const auto& d : p->list_data()) {
      if (!d.same_as(a)) continue;
      op::AttrMap attrs = {{"__dtype__", std::to_string(static_cast<int>(p->dtype()))},
                           {"__lr_mult__", py_float(p->lr_mult)},
                           {"__shape__", p->shape().str()},
                           {"__storage_type__", "0"},
                           {"__wd_mult__", py_float(p->wd_mult)}};
      symbol::Entry e = Symbol::Variable(p->name(), attrs).outputs()[0];
      known_.emplace_back(d, e);
      return e;
    }
  }
  throw Error(cat("hybridize: forward reads an array of shape ", a.shape(),
                  " that is neither an input, a Parameter, nor computed by an operator inside forward (a view "
                  "made with reshape/slice, or an array kept from outside?); use nd:: operators on the inputs, "
                  "or register the array as a Parameter"));
}

void GraphTracer::record(const op::OpDef& def, const std::string& spelling, const op::AttrMap& attrs,
                         const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs) {
  auto node = std::make_shared<symbol::Node>();
  node->op = &def;
  node->op_name = def.name;
  node->attrs = attrs;
  node->attrs.erase("ctx");  // where the traced run happened; the graph runs where it is called
  symbol::parse_node_params(*node);
  node->name = next_name(spelling);
  for (const auto& a : inputs) node->inputs.push_back(lookup(a));
  for (uint32_t k = 0; k < outputs.size(); ++k) known_.emplace_back(outputs[k], symbol::Entry{node, k});
}

Symbol GraphTracer::finish(const std::vector<NDArray>& outputs) {
  std::vector<symbol::Entry> heads;
  for (const auto& o : outputs) heads.push_back(lookup(o));
  return Symbol(std::move(heads));
}

}  // namespace braid::gluon::detail
