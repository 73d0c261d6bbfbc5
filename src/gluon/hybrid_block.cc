#include <algorithm>
#include <cstdio>

#include "braid/base/error.h"
#include "braid/base/np_shape.h"
#include "braid/gluon/block.h"
#include "braid/io/params.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "braid/op/input_slots.h"
#include "braid/op/registry.h"
#include "cached_graph.h"
#include "graph_tracer.h"
#include "imperative/tracer.h"

namespace braid::gluon {

HybridBlock::~HybridBlock() = default;

void HybridBlock::hybridize(bool active, bool static_alloc, bool static_shape) {
  hybridized_ = active;
  static_alloc_ = static_alloc;
  cached_.reset();
  Block::hybridize(active, static_alloc, static_shape);
}

void HybridBlock::name_next_op(const std::string& name) const {
  if (auto* tracer = detail::GraphTracer::current()) tracer->name_next(name);
}

std::vector<NDArray> HybridBlock::run(const std::vector<NDArray>& inputs) {
  if (auto* tracer = detail::GraphTracer::current()) {
    // Inside an outer block's trace: name this block's nodes after it (in the enclosing scope
    // for a block made with an empty prefix, as MXNet does).
    if (!opens_name_scope()) return forward(inputs);
    tracer->push_scope(prefix(), names_first_op_fwd());
    struct Pop {
      detail::GraphTracer* t;
      ~Pop() { t->pop_scope(); }
    } pop{tracer};
    return forward(inputs);
  }
  if (!hybridized_) return forward(inputs);
  if (std::any_of(inputs.begin(), inputs.end(), [](const NDArray& a) { return a.is_sparse(); }))
    return run(sparse::densify(inputs));  // a compiled graph computes on dense arrays
  if (cached_) return (*cached_)(inputs);
  ParameterDict params = collect_params();
  detail::GraphTracer tracer(inputs, params, prefix(), names_first_op_fwd());
  if (op_hook_) tracer.set_op_hook(op_hook_, op_hook_all_);
  std::vector<NDArray> out = forward(inputs);
  if (!tracer.why_not_replayable().empty()) {  // control flow in Python: keep running forward
    hybridized_ = false;
    return out;
  }
  Symbol graph = tracer.finish(out);
  cached_ = std::make_shared<detail::CachedGraph>(graph, tracer.input_names(), params, static_alloc_);
  hook_cached_graph();
  return out;
}

void HybridBlock::register_op_hook(MonitorCallback callback, bool monitor_all) {
  Block::register_op_hook(callback, monitor_all);
  op_hook_ = std::move(callback);
  op_hook_all_ = monitor_all;
  if (cached_) cached_->set_monitor_callback(op_hook_, op_hook_all_);
}

void HybridBlock::hook_cached_graph() {
  if (cached_ && op_hook_) cached_->set_monitor_callback(op_hook_, op_hook_all_);
}

Symbol HybridBlock::traced_symbol() const { return cached_ ? cached_->symbol() : Symbol(); }

void HybridBlock::export_model(const std::string& path_prefix, int epoch) const {
  BRAID_CHECK(cached_, "export: block ", prefix(), " has no graph yet; call hybridize() and run it once first");
  const Symbol& graph = cached_->symbol();
  auto args = graph.list_arguments(), aux = graph.list_auxiliary_states();
  std::vector<std::pair<std::string, NDArray>> named;
  for (const auto& [name, p] : collect_params()) {
    bool is_arg = std::find(args.begin(), args.end(), name) != args.end();
    bool is_aux = std::find(aux.begin(), aux.end(), name) != aux.end();
    if (is_arg || is_aux) named.emplace_back((is_arg ? "arg:" : "aux:") + name, p->reduce());
  }
  graph.save(path_prefix + "-symbol.json");
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "-%04d.params", epoch);
  io::save(path_prefix + suffix, named);
}

std::vector<NDArray> HybridBlock::call_op(const std::string& op_name, const std::vector<OpArg>& args,
                                          const op::AttrMap& attrs) const {
  std::vector<std::pair<std::string, OpArg>> inputs;
  for (const auto& a : args) inputs.emplace_back("", a);
  return invoke_with_parameters(op_name, inputs, attrs, "block " + prefix());
}

std::vector<NDArray> invoke_with_parameters(const std::string& op_name,
                                            const std::vector<std::pair<std::string, OpArg>>& inputs,
                                            const op::AttrMap& given_attrs, const std::string& who) {
  const op::OpDef& def = op::Registry::get().find(op_name);
  op::AttrMap attrs = given_attrs;
  if (!def.key_var_num_args.empty() && !attrs.count(def.key_var_num_args))
    attrs[def.key_var_num_args] = std::to_string(inputs.size());
  std::any param = def.parse(attrs);
  std::vector<std::string> slots = def.list_arguments(param), aux_names = def.list_aux(param);
  const size_t nargs = slots.size();
  slots.insert(slots.end(), aux_names.begin(), aux_names.end());
  std::vector<std::string> names;
  for (const auto& in : inputs) names.push_back(in.first);
  const std::vector<size_t> where = op::input_slots(def.name, slots, names, " (" + who + ")");
  std::vector<const OpArg*> placed(slots.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) placed[where[i]] = &inputs[i].second;

  if (auto* tracer = detail::GraphTracer::current(); tracer && tracer->symbolic()) {
    // Called on Symbols: the operator becomes a node; nothing runs, nothing is initialized.
    std::vector<symbol::Entry> entries;
    for (size_t i = 0; i < slots.size(); ++i) {
      BRAID_CHECK(placed[i], who, ": operator ", def.name, " is missing its input '", slots[i], "'");
      const auto* arr = std::get_if<NDArray>(placed[i]);
      entries.push_back(arr ? tracer->entry_of(*arr) : tracer->param_entry(std::get<ParameterPtr>(*placed[i])));
    }
    return tracer->symbolic_node(def, op_name, attrs, entries, def.num_visible_outputs(param));
  }
  std::optional<Context> ctx;
  bool deferred = false;
  for (size_t i = 0; i < slots.size(); ++i) {
    BRAID_CHECK(placed[i], who, ": operator ", def.name, " is missing its input '", slots[i], "'");
    if (const auto* arr = std::get_if<NDArray>(placed[i])) {
      if (!ctx && !arr->is_none()) ctx = arr->ctx();
    } else {
      deferred = deferred || std::get<ParameterPtr>(*placed[i])->deferred();
    }
  }
  BRAID_CHECK(ctx, who, ": operator ", def.name, " needs at least one input array");
  if (deferred) {
    // Complete the parameters' unknown dimensions from the data, like MXNet's deferred init;
    // initializing them is no part of a traced graph. A parameter's unknown dimension is 0 in
    // either shape semantics, as in MXNet's Gluon.
    imperative::TracerPause pause;
    const NpShapeScope parameter_shapes(false);
    std::vector<Shape> in(nargs), aux(slots.size() - nargs), out(static_cast<size_t>(def.num_outputs(param)));
    for (size_t i = 0; i < slots.size(); ++i) {
      const auto* arr = std::get_if<NDArray>(placed[i]);
      (i < nargs ? in[i] : aux[i - nargs]) = arr ? arr->shape() : std::get<ParameterPtr>(*placed[i])->shape();
    }
    def.infer_shape(param, in, out, aux);
    for (size_t i = 0; i < slots.size(); ++i)
      if (const auto* p = std::get_if<ParameterPtr>(placed[i]); p && (*p)->deferred()) {
        const Shape& s = i < nargs ? in[i] : aux[i - nargs];
        BRAID_CHECK(s.fully_known(), who, ": cannot infer the shape of Parameter '", (*p)->name(),
                    "' from the input (got ", s, ")");
        (*p)->finish_deferred_init(s);
      }
  }
  std::vector<NDArray> arrays;
  for (const OpArg* a : placed) {
    if (const auto* arr = std::get_if<NDArray>(a))
      arrays.push_back(*arr);
    else
      arrays.push_back(std::get<ParameterPtr>(*a)->data(*ctx));
  }
  return nd::invoke(op_name, arrays, attrs);
}

NDArray HybridBlock::call_op1(const std::string& op_name, const std::vector<OpArg>& args,
                              const op::AttrMap& attrs) const {
  auto out = call_op(op_name, args, attrs);
  BRAID_CHECK(out.size() == 1, "operator ", op_name, " has ", out.size(), " outputs");
  return out[0];
}

}  // namespace braid::gluon
