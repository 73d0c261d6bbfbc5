#include "graph.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace braid::symbol::detail {

void dfs_visit(const std::vector<Entry>& outputs, const std::function<void(const NodePtr&)>& fn) {
  std::unordered_set<const Node*> seen;
  std::vector<std::pair<NodePtr, size_t>> stack;  // (node, next input to visit)
  for (const auto& out : outputs) {
    if (!seen.insert(out.node.get()).second) continue;
    stack.emplace_back(out.node, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->inputs.size()) {
        const NodePtr& in = node->inputs[next++].node;
        if (seen.insert(in.get()).second) stack.emplace_back(in, 0);
        continue;
      }
      NodePtr done = node;
      stack.pop_back();
      fn(done);
    }
  }
}

IndexedGraph index_graph(const std::vector<Entry>& outputs) {
  IndexedGraph g;
  g.row_ptr.push_back(0);
  dfs_visit(outputs, [&](const NodePtr& n) {
    g.index_[n.get()] = static_cast<uint32_t>(g.nodes.size());
    g.nodes.push_back(n);
    g.row_ptr.push_back(g.row_ptr.back() + n->num_outputs());
  });
  g.is_aux.assign(g.nodes.size(), false);
  for (const auto& n : g.nodes) {
    std::vector<uint32_t> ids, entries;
    size_t nargs = n->num_arguments();
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      uint32_t id = g.node_id(n->inputs[i].node.get());
      ids.push_back(id);
      entries.push_back(g.entry_id(id, n->inputs[i].index));
      if (i >= nargs && g.nodes[id]->is_variable()) g.is_aux[id] = true;
    }
    g.inputs.push_back(std::move(ids));
    g.input_entries.push_back(std::move(entries));
  }
  for (const auto& e : outputs) g.outputs.push_back(g.entry_id(e));
  return g;
}

uint32_t IndexedGraph::entry_node(uint32_t entry) const {
  auto it = std::upper_bound(row_ptr.begin(), row_ptr.end(), entry);
  return static_cast<uint32_t>(it - row_ptr.begin() - 1);
}

}  // namespace braid::symbol::detail
