#include "eliminate_common_expr.h"

#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "braid/base/error.h"
#include "braid/op/registry.h"
#include "graph.h"

namespace braid::symbol::detail {
namespace {

using EntryKey = std::pair<const Node*, uint32_t>;
/// What a node computes: its operator, attributes and input values.
using NodeKey = std::tuple<const op::OpDef*, op::AttrMap, std::vector<EntryKey>>;

EntryKey key_of(const Entry& e) { return {e.node.get(), e.index}; }

/// Whether two nodes with equal keys may share one node: not when each draws its own random
/// numbers, keeps state of its own (Python custom operators) or writes to its inputs.
bool mergeable(const Node& n) {
  const op::OpDef& d = *n.op;
  return !n.inputs.empty() && !d.needs_rng && !d.runs_on_host() && !d.mutates_aux && !d.backward_mutates_aux &&
         d.mutate_inputs(n.param).empty();
}

Entry copy_of_entry(const Entry& e, const std::string& name) {
  auto copy = std::make_shared<Node>();
  copy->op = &op::Registry::get().find("_copy");
  copy->op_name = "_copy";
  copy->name = name;
  copy->inputs = {e};
  parse_node_params(*copy);
  return Entry{copy, 0};
}

}  // namespace

Symbol eliminate_common_expr(const Symbol& symbol) {
  std::unordered_map<const Node*, NodePtr> kept;  // a node of `symbol` -> the node computing it
  std::map<NodeKey, NodePtr> computed;
  // Inputs come before their readers, so a node's inputs are already merged when it is reached:
  // one pass finds chains of common expressions ((a + b) + c twice) whole.
  dfs_visit(symbol.outputs(), [&](const NodePtr& n) {
    auto node = std::make_shared<Node>(*n);
    for (Entry& e : node->inputs) e.node = kept.at(e.node.get());
    if (!node->is_variable() && mergeable(*node)) {
      std::vector<EntryKey> inputs;
      for (const Entry& e : node->inputs) inputs.push_back(key_of(e));
      node = computed.try_emplace(NodeKey{node->op, node->attrs, std::move(inputs)}, node).first->second;
    }
    kept[n.get()] = node;
  });
  std::vector<Entry> outputs;
  std::map<EntryKey, int> copies;  // an output value -> the copies of it made so far
  for (const Entry& out : symbol.outputs()) {
    Entry e{kept.at(out.node.get()), out.index};
    auto [seen, first] = copies.try_emplace(key_of(e), 0);
    outputs.push_back(first ? e : copy_of_entry(e, cat(e.node->name, "_", seen->second++, "_copy")));
  }
  return Symbol(std::move(outputs));
}

}  // namespace braid::symbol::detail
