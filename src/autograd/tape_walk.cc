#include "tape_walk.h"

#include <unordered_set>

#include "braid/base/error.h"

namespace braid::autograd::detail {

using imperative::Entry;
using imperative::Node;
using NodePtr = std::shared_ptr<Node>;

namespace {

constexpr const char* kReleased =
    "backward: the graph behind this array was released by an earlier backward; pass "
    "retain_graph=true to the first backward to back-propagate through it again";

}  // namespace

std::vector<NodePtr> topological_order(const std::vector<Entry>& heads) {
  std::vector<NodePtr> order;
  std::unordered_set<Node*> seen;
  std::vector<std::pair<NodePtr, size_t>> stack;  // (node, next parent to visit)
  for (const auto& h : heads) {
    BRAID_CHECK(!h.node->freed, kReleased);
    if (!seen.insert(h.node.get()).second) continue;
    stack.emplace_back(h.node, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->parents.size()) {
        const Entry& p = node->parents[next++];
        if (p && !p.node->freed && seen.insert(p.node.get()).second) stack.emplace_back(p.node, 0);
        continue;
      }
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace braid::autograd::detail
