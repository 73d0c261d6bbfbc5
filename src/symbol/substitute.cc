// Symbol::compose: calling a symbol on other symbols (MXNet's Symbol.__call__), which replaces
// its argument variables in a copy of the graph.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "braid/base/error.h"
#include "braid/symbol/symbol.h"
#include "graph.h"

namespace braid {

using symbol::Entry;
using symbol::Node;
using symbol::NodePtr;

Symbol Symbol::compose(const std::vector<Symbol>& args, const std::map<std::string, Symbol>& kwargs,
                       const std::string& name) const {
  auto arg_names = list_arguments();
  BRAID_CHECK(args.size() <= arg_names.size(), "compose: ", args.size(), " positional symbols for ", arg_names.size(),
              " arguments");
  std::map<std::string, Entry> replace;
  auto single = [](const Symbol& s, const std::string& name) {
    BRAID_CHECK(s.num_outputs() == 1, "compose: the symbol given for '", name, "' has ", s.num_outputs(),
                " outputs; pick one with []");
    return s.outputs()[0];
  };
  for (size_t i = 0; i < args.size(); ++i) replace[arg_names[i]] = single(args[i], arg_names[i]);
  auto inputs = list_inputs();
  for (const auto& [name, s] : kwargs) {
    bool found = std::find(inputs.begin(), inputs.end(), name) != inputs.end();
    std::string candidates;
    for (const auto& n : arg_names) candidates += (candidates.empty() ? "" : ", ") + n;
    BRAID_CHECK(found, "compose: keyword argument '", name, "' is not a variable of the symbol; its arguments are ",
                candidates);
    replace[name] = single(s, name);
  }
  // Copy every operator node (inputs before the nodes reading them), rewiring to the copies.
  std::unordered_map<const Node*, NodePtr> copies;
  auto remap = [&](const Entry& e) -> Entry {
    if (e.node->is_variable()) {
      auto r = replace.find(e.node->name);
      return r == replace.end() ? e : r->second;
    }
    return Entry{copies.at(e.node.get()), e.index};
  };
  symbol::detail::dfs_visit(outputs_, [&](const NodePtr& n) {
    if (n->is_variable()) return;
    auto c = std::make_shared<Node>(*n);
    for (auto& e : c->inputs) e = remap(e);
    copies[n.get()] = c;
  });
  std::vector<Entry> outs;
  for (const auto& e : outputs_) outs.push_back(remap(e));
  // MXNet renames the (copied) node of the first output.
  if (!name.empty() && !outs.empty() && copies.count(outputs_[0].node.get())) outs[0].node->name = name;
  return Symbol(std::move(outs));
}

}  // namespace braid
