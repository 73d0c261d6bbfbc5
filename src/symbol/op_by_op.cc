#include "op_by_op.h"

#include "braid/ndarray/invoke.h"
#include "graph.h"

namespace braid::symbol::detail {

bool has_value_dependent_shapes(const std::vector<Entry>& outputs) {
  bool found = false;
  dfs_visit(outputs, [&found](const NodePtr& n) { found = found || (n->op && n->op->value_dependent_shape); });
  return found;
}

std::vector<NDArray> run_op_by_op(const std::vector<Entry>& outputs, const std::vector<NDArray>& args,
                                  const std::vector<NDArray>& aux) {
  const IndexedGraph g = index_graph(outputs);
  std::vector<NDArray> entries(g.num_entries());
  size_t arg = 0, state = 0;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = *g.nodes[i];
    if (n.is_variable()) {
      entries[g.entry_id(i, 0)] = g.is_aux[i] ? aux.at(state++) : args.at(arg++);
      continue;
    }
    std::vector<NDArray> inputs;
    for (uint32_t e : g.input_entries[i]) inputs.push_back(entries[e]);
    std::vector<NDArray> results = nd::invoke_all(n.op->name, inputs, n.op_attrs());
    for (uint32_t k = 0; k < results.size(); ++k) entries[g.entry_id(i, k)] = results[k];
  }
  std::vector<NDArray> result;
  for (uint32_t e : g.outputs) result.push_back(entries[e]);
  return result;
}

}  // namespace braid::symbol::detail
