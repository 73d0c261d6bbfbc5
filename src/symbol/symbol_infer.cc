// Symbol::infer_shape and infer_type: the graph-wide inference of infer.h, by input name.
#include "braid/base/error.h"
#include "braid/symbol/symbol.h"
#include "infer.h"
#include "op_by_op.h"

namespace braid {
namespace {

using symbol::detail::IndexedGraph;

/// Seeds per-entry values from `known` (by variable name), runs `infer`, and splits the result
/// into arguments, outputs and auxiliary states.
template <class T, class Infer>
InferResult<T> infer(const std::vector<symbol::Entry>& outputs, const std::map<std::string, T>& known, T unknown,
                     Infer infer_fn, bool* complete) {
  IndexedGraph g = symbol::detail::index_graph(outputs);
  std::vector<T> values(g.num_entries(), unknown);
  std::map<std::string, uint32_t> inputs;
  for (uint32_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i]->is_variable()) inputs[g.nodes[i]->name] = g.entry_id(i, 0);
  for (const auto& [name, v] : known) {
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      std::string all;
      for (const auto& [n, e] : inputs) all += cat(all.empty() ? "" : ", ", n);
      throw Error(cat("infer: '", name, "' is not an input of the symbol; its inputs are: ", all));
    }
    values[it->second] = v;
  }
  *complete = infer_fn(g, values);
  InferResult<T> r;
  for (uint32_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i]->is_variable()) (g.is_aux[i] ? r.aux : r.arg).push_back(values[g.entry_id(i, 0)]);
  for (uint32_t e : g.outputs) r.out.push_back(values[e]);
  return r;
}

}  // namespace

InferResult<Shape> Symbol::infer_shape_partial(const std::map<std::string, Shape>& known) const {
  bool complete = false;
  return infer<Shape>(outputs_, known, Shape(), symbol::detail::infer_shapes, &complete);
}

InferResult<Shape> Symbol::infer_shape(const std::map<std::string, Shape>& known) const {
  bool complete = false;
  auto r = infer<Shape>(outputs_, known, Shape(), symbol::detail::infer_shapes, &complete);
  if (complete) return r;
  std::string missing;
  auto args = list_arguments(), aux = list_auxiliary_states();
  for (size_t i = 0; i < r.arg.size(); ++i)
    if (!r.arg[i].fully_known()) missing += cat(missing.empty() ? "" : ", ", args[i], " ", r.arg[i]);
  for (size_t i = 0; i < r.aux.size(); ++i)
    if (!r.aux[i].fully_known()) missing += cat(missing.empty() ? "" : ", ", aux[i], " ", r.aux[i]);
  if (missing.empty() && symbol::detail::has_value_dependent_shapes(outputs_))
    throw Error(
        "infer_shape: the graph's output shapes depend on its input values (an operator such as "
        "contrib.boolean_mask), which shape inference cannot know; run it imperatively, or through a "
        "hybridized block or CachedOp, which run such graphs op by op");
  throw Error(cat("infer_shape: cannot complete the shapes of ",
                  missing.empty() ? std::string("some internal outputs") : missing,
                  "; give more input shapes (or use infer_shape_partial)"));
}

InferResult<DType> Symbol::infer_type(const std::map<std::string, DType>& known) const {
  bool complete = false;
  return infer<DType>(outputs_, known, kDTypeUnknown, symbol::detail::infer_types, &complete);
}

}  // namespace braid
