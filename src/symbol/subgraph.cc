#include "braid/symbol/subgraph.h"

#include <map>
#include <memory>

#include "graph.h"

namespace braid::symbol {

CutSubgraph cut_subgraph(const Symbol& graph, const std::string& scope) {
  CutSubgraph result;
  std::map<const Node*, NodePtr> copies;                       // in-scope op nodes, copied
  std::map<std::pair<const Node*, uint32_t>, Entry> cut_vars;  // outside outputs -> their variables
  const auto inside = [&scope](const Node& n) {
    auto it = n.attrs.find("__subgraph_name__");
    return it != n.attrs.end() && it->second == scope;
  };
  // An entry as the body reads it: copied node, the variable itself, or a cut variable.
  const auto remap = [&](const Entry& e) -> Entry {
    if (e.node->is_variable()) return e;
    if (auto it = copies.find(e.node.get()); it != copies.end()) return Entry{it->second, e.index};
    const auto key = std::make_pair(e.node.get(), e.index);
    if (auto it = cut_vars.find(key); it != cut_vars.end()) return it->second;
    const std::string name = e.node->num_outputs() > 1 ? cat(e.node->name, "_output", e.index) : e.node->name;
    Entry var = Symbol::Variable(name).outputs()[0];
    cut_vars.emplace(key, var);
    result.cut.emplace_back(name, Symbol({e}));
    return var;
  };
  detail::dfs_visit(graph.outputs(), [&](const NodePtr& n) {
    if (n->is_variable() || !inside(*n)) return;
    auto copy = std::make_shared<Node>(*n);
    for (auto& e : copy->inputs) e = remap(e);
    copies.emplace(n.get(), copy);
  });
  std::vector<Entry> outputs;
  for (const auto& e : graph.outputs()) outputs.push_back(remap(e));
  result.graph = Symbol(std::move(outputs));
  return result;
}

}  // namespace braid::symbol
