#include "graph_tracer.h"

#include <utility>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/gluon/tracing.h"
#include "braid/op/registry.h"
#include "imperative/tape.h"
#include "py_repr.h"
#include "symbol/monitor.h"

namespace braid::gluon::detail {

namespace {
thread_local GraphTracer* t_current = nullptr;

op::AttrMap variable_attrs(const Parameter& p) {
  return {{"__dtype__", std::to_string(static_cast<int>(p.dtype()))},
          {"__lr_mult__", py_float(p.lr_mult)},
          {"__shape__", p.shape().str()},
          {"__storage_type__", "0"},
          {"__wd_mult__", py_float(p.wd_mult)}};
}
}  // namespace

GraphTracer::GraphTracer(const std::vector<NDArray>& inputs, const ParameterDict& params, const std::string& prefix,
                         bool first_op_fwd)
    : prev_(imperative::set_tracer(this)) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = inputs.size() == 1 ? "data" : cat("data", i);
    input_names_.push_back(name);
    known_.emplace_back(inputs[i], Symbol::Variable(name).outputs()[0]);
  }
  for (const auto& [name, p] : params) params_.push_back(p);
  push_scope(prefix, first_op_fwd);
  prev_current_ = t_current;
  t_current = this;
}

GraphTracer::GraphTracer(const std::vector<symbol::Entry>& inputs, const std::string& prefix, bool first_op_fwd)
    : symbolic_(true), prev_(imperative::set_tracer(this)) {
  for (const auto& e : inputs) tokens_.push_back(token_for(e));
  push_scope(prefix, first_op_fwd);
  prev_current_ = t_current;
  t_current = this;
}

NDArray GraphTracer::token_for(const symbol::Entry& e) {
  NDArray token(Shape({1}));  // distinct storage: only its identity matters
  known_.emplace_back(token, e);
  return token;
}

symbol::Entry GraphTracer::param_entry(const ParameterPtr& p) {
  for (const auto& [q, e] : param_vars_)
    if (q == p.get()) return e;
  symbol::Entry e = Symbol::Variable(p->name(), variable_attrs(*p)).outputs()[0];
  param_vars_.emplace_back(p.get(), e);
  return e;
}

std::vector<NDArray> GraphTracer::symbolic_node(const op::OpDef& def, const std::string& spelling,
                                                const op::AttrMap& attrs, const std::vector<symbol::Entry>& inputs,
                                                int num_outputs) {
  auto node = std::make_shared<symbol::Node>();
  node->op = &def;
  node->op_name = def.name;
  node->attrs = attrs;
  symbol::parse_node_params(*node);
  node->name = next_name(spelling);
  node->inputs = inputs;
  std::vector<NDArray> out;
  for (int k = 0; k < num_outputs; ++k) out.push_back(token_for(symbol::Entry{node, static_cast<uint32_t>(k)}));
  return out;
}

GraphTracer::~GraphTracer() {
  imperative::set_tracer(prev_);
  t_current = prev_current_;  // a block called on Symbols inside another's trace
}

GraphTracer* GraphTracer::current() { return t_current; }

}  // namespace braid::gluon::detail

namespace braid::gluon {

bool tracing() { return detail::GraphTracer::current() != nullptr; }

void trace_cannot_replay(const std::string& why) {
  if (auto* t = detail::GraphTracer::current()) t->cannot_replay(why);
}

}  // namespace braid::gluon

namespace braid::gluon::detail {

void GraphTracer::push_scope(const std::string& prefix, bool first_op_fwd) {
  scopes_.push_back(Scope{prefix, first_op_fwd, false, {}});
}
void GraphTracer::pop_scope() { scopes_.pop_back(); }

std::string GraphTracer::next_name(const std::string& op) {
  Scope& s = scopes_.back();
  if (!next_name_.empty()) return s.prefix + std::exchange(next_name_, "");
  if (s.first_op_fwd && !s.used_fwd) {
    s.used_fwd = true;
    return s.prefix + "fwd";
  }
  const std::string hint = to_lower(op);
  return cat(s.prefix, hint, s.counters[hint]++);
}

symbol::Entry GraphTracer::lookup(const NDArray& a) {
  for (auto it = known_.rbegin(); it != known_.rend(); ++it)
    if (it->first.same_as(a)) return it->second;
  for (const auto& p : params_) {
    if (!p->initialized()) continue;
    for (const auto& d : p->list_data()) {
      if (!d.same_as(a)) continue;
      symbol::Entry e = param_entry(p);
      known_.emplace_back(d, e);
      return e;
    }
  }
  if (auto e = view_of_known(a)) return *e;
  throw Error(cat("hybridize: forward reads an array of shape ", a.shape(),
                  " that is neither an input, a Parameter, nor computed by an operator inside forward (a view "
                  "made with reshape/slice, or an array kept from outside?); use nd:: operators on the inputs, "
                  "or register the array as a Parameter"));
}

symbol::Entry GraphTracer::add_node(const std::string& op, const op::AttrMap& attrs, const symbol::Entry& input) {
  auto node = std::make_shared<symbol::Node>();
  node->op = &op::Registry::get().find(op);
  node->op_name = node->op->name;
  node->attrs = attrs;
  symbol::parse_node_params(*node);
  node->name = next_name(op);
  node->inputs.push_back(input);
  return symbol::Entry{node, 0};
}

std::optional<symbol::Entry> GraphTracer::view_of_known(const NDArray& a) {
  // A view (reshape, slice, at) shares its array's memory and engine variable; in the graph it
  // becomes that array flattened, the view's elements sliced out, reshaped.
  for (auto it = known_.rbegin(); it != known_.rend(); ++it) {
    const NDArray& k = it->first;
    if (k.is_none() || k.var() != a.var()) continue;
    const int64_t begin = imperative::Access::offset(a) - imperative::Access::offset(k);
    if (begin < 0 || begin + a.size() > k.size()) continue;
    symbol::Entry e = it->second;
    if (begin != 0 || a.size() != k.size()) {
      e = add_node("Reshape", {{"shape", "(-1,)"}}, e);
      e = add_node("slice_axis",
                   {{"axis", "0"}, {"begin", std::to_string(begin)}, {"end", std::to_string(begin + a.size())}}, e);
    }
    e = add_node("Reshape", {{"shape", a.shape().str()}}, e);
    known_.emplace_back(a, e);
    return e;
  }
  return std::nullopt;
}

void GraphTracer::record(const op::OpDef& def, const std::string& spelling, const op::AttrMap& attrs,
                         const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs) {
  // No graph will be kept (Python control flow): the arrays its loops make need no names.
  if (!why_not_replayable_.empty()) return;
  auto node = std::make_shared<symbol::Node>();
  node->op = &def;
  node->op_name = def.name;
  node->attrs = attrs;
  node->attrs.erase("ctx");  // where the traced run happened; the graph runs where it is called
  symbol::parse_node_params(*node);
  node->name = next_name(spelling);
  for (const auto& a : inputs) node->inputs.push_back(lookup(a));
  for (uint32_t k = 0; k < outputs.size(); ++k) known_.emplace_back(outputs[k], symbol::Entry{node, k});
  if (!hook_) return;
  if (hook_all_) {
    const auto names = symbol::detail::monitor_input_names(def, node->param, node->name);
    for (size_t i = 0; i < inputs.size() && i < names.size(); ++i) hook_(names[i], def.name, inputs[i]);
  }
  const size_t visible = static_cast<size_t>(def.num_visible_outputs(node->param));
  for (size_t k = 0; k < visible && k < outputs.size(); ++k)
    hook_(symbol::detail::monitor_output_name(node->name, visible, k), def.name, outputs[k]);
}

Symbol GraphTracer::finish(const std::vector<NDArray>& outputs) {
  std::vector<symbol::Entry> heads;
  for (const auto& o : outputs) heads.push_back(lookup(o));
  return Symbol(std::move(heads));
}

}  // namespace braid::gluon::detail
