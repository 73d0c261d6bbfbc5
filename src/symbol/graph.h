#pragma once
// Internal: a symbol's nodes in a fixed order with integer ids, what every pass works on (MXNet's
// nnvm::IndexedGraph). Nodes come in depth-first post-order from the outputs, inputs in order,
// so every node follows its inputs; that is also the order of MXNet's JSON "nodes".
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "braid/symbol/node.h"

namespace braid::symbol::detail {

struct IndexedGraph {
  std::vector<NodePtr> nodes;
  std::vector<uint32_t> row_ptr;                     // entry ids of node i are [row_ptr[i], row_ptr[i + 1])
  std::vector<std::vector<uint32_t>> inputs;         // per node: the node ids of its input entries
  std::vector<std::vector<uint32_t>> input_entries;  // per node: entry ids of its inputs
  std::vector<uint32_t> outputs;                     // entry ids of the symbol's outputs
  std::vector<bool> is_aux;                          // per node: a variable read as an auxiliary state

  size_t num_entries() const { return row_ptr.back(); }
  uint32_t entry_id(uint32_t node, uint32_t index) const { return row_ptr[node] + index; }
  uint32_t node_id(const Node* n) const { return index_.at(n); }
  uint32_t entry_id(const Entry& e) const { return entry_id(node_id(e.node.get()), e.index); }
  /// The node an entry belongs to.
  uint32_t entry_node(uint32_t entry) const;

  std::unordered_map<const Node*, uint32_t> index_;
};

IndexedGraph index_graph(const std::vector<Entry>& outputs);

/// Calls fn on every node reachable from `outputs`, inputs before the nodes reading them.
void dfs_visit(const std::vector<Entry>& outputs, const std::function<void(const NodePtr&)>& fn);

}  // namespace braid::symbol::detail
