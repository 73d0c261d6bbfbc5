#include "braid/symbol/node.h"

#include "braid/base/error.h"

namespace braid::symbol {

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
