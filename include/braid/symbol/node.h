#pragma once
/// The nodes a Symbol is made of (MXNet's nnvm::Node). A node is a variable (no op) or an
/// operator applied to entries, an entry being one output of another node. Nodes are shared and
/// immutable once a Symbol holding them exists, except for their attributes (Symbol::set_attr).
#include <any>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "braid/op/op_def.h"

namespace braid::symbol {

struct Node;
using NodePtr = std::shared_ptr<Node>;

/// Output `index` of `node`.
struct Entry {
  NodePtr node;
  uint32_t index = 0;
  bool operator==(const Entry& o) const { return node == o.node && index == o.index; }
};

struct Node {
  const op::OpDef* op = nullptr;  // null for a variable
  std::string op_name;            // as spelled where the node was made ("Concat"), for JSON
  std::string name;
  /// Every attribute as MXNet stores it: the op's parameters and hidden keys (`__shape__`,
  /// `__ctx_group__`, `__lr_mult__`).
  op::AttrMap attrs;
  std::vector<Entry> inputs;  // arguments, then auxiliary states
  std::any param;             // the op's parameters, parsed from attrs

  Node() = default;
  Node(const Node&) = default;
  Node& operator=(const Node&) = default;
  /// Iterative: a graph of any length (a 200,000-node chain) is destroyed without recursion.
  ~Node();

  bool is_variable() const { return op == nullptr; }
  /// Outputs the op computes (BatchNorm: 3); 1 for a variable.
  uint32_t num_outputs() const;
  /// Outputs a user sees (BatchNorm: 1).
  uint32_t num_visible_outputs() const;
  /// Number of arguments (inputs before the auxiliary states).
  size_t num_arguments() const;
  /// `attrs` without hidden keys (`__x__`): what the op's parser reads.
  op::AttrMap op_attrs() const;
};

/// Whether `key` is a hidden attribute (`__shape__`): not an op parameter.
bool is_hidden_key(const std::string& key);

/// Parses `attrs` into `node.param` with node.op's parser, naming the node on error.
void parse_node_params(Node& node);

}  // namespace braid::symbol
