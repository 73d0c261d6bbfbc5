#include "braid/symbol/node.h"

#include "braid/base/error.h"

namespace braid::symbol {

// Dropping the last reference to a node would destroy its inputs from inside its destructor, and
// theirs from inside those: a long chain overflows the stack. Instead the references move to an
// explicit stack; a node whose last reference is popped there is emptied of its inputs first, so
// its own destructor has nothing left to destroy.
Node::~Node() {
  std::vector<NodePtr> pending;
  for (auto& e : inputs) pending.push_back(std::move(e.node));
  while (!pending.empty()) {
    NodePtr n = std::move(pending.back());
    pending.pop_back();
    if (n.use_count() == 1)
      for (auto& e : n->inputs) pending.push_back(std::move(e.node));
  }
}

uint32_t Node::num_outputs() const { return op ? static_cast<uint32_t>(op->num_outputs(param)) : 1; }

uint32_t Node::num_visible_outputs() const { return op ? static_cast<uint32_t>(op->num_visible_outputs(param)) : 1; }

size_t Node::num_arguments() const { return op ? op->list_arguments(param).size() : 0; }

bool is_hidden_key(const std::string& key) { return key.size() > 4 && key.starts_with("__") && key.ends_with("__"); }

op::AttrMap Node::op_attrs() const {
  op::AttrMap out;
  for (const auto& [k, v] : attrs)
    if (!is_hidden_key(k)) out.emplace(k, v);
  return out;
}

void parse_node_params(Node& node) {
  try {
    node.param = node.op->parse(node.op_attrs());
  } catch (const Error& e) {
    throw Error(cat("node '", node.name, "' (", node.op_name, "): ", e.what()));
  }
}

}  // namespace braid::symbol
