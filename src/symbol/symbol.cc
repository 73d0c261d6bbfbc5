#include "braid/symbol/symbol.h"

#include <algorithm>
#include <sstream>

#include "braid/base/error.h"
#include "braid/symbol/compose.h"
#include "graph.h"

namespace braid {

using symbol::Entry;
using symbol::Node;
using symbol::NodePtr;

Symbol Symbol::Variable(const std::string& name, const op::AttrMap& attrs, const VariableOptions& options) {
  BRAID_CHECK(!name.empty(), "Symbol::Variable: the name is empty");
  auto node = std::make_shared<Node>();
  node->name = name;
  node->attrs = attrs;
  for (const auto& [k, v] : sym::current_scope_attrs()) node->attrs.emplace(k, v);
  if (options.shape.known()) node->attrs["__shape__"] = options.shape.str();
  if (options.dtype) node->attrs["__dtype__"] = std::to_string(static_cast<int>(*options.dtype));
  auto number = [](double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  };
  if (options.lr_mult) node->attrs["__lr_mult__"] = number(*options.lr_mult);
  if (options.wd_mult) node->attrs["__wd_mult__"] = number(*options.wd_mult);
  if (!options.init.empty()) node->attrs["__init__"] = options.init;
  return Symbol({Entry{node, 0}});
}

Symbol Symbol::Group(const std::vector<Symbol>& symbols) {
  std::vector<Entry> outs;
  for (const auto& s : symbols) outs.insert(outs.end(), s.outputs_.begin(), s.outputs_.end());
  return Symbol(std::move(outs));
}

const Node& Symbol::single_node(const char* what) const {
  BRAID_CHECK(outputs_.size() == 1, "Symbol::", what, " needs a symbol with one output; this one has ", outputs_.size(),
              " (take one with operator[])");
  return *outputs_[0].node;
}

const std::string& Symbol::name() const { return single_node("name").name; }

namespace {

std::vector<std::string> list_variables(const std::vector<Entry>& outputs, int which) {
  // which: 0 arguments, 1 auxiliary states, 2 both
  auto g = symbol::detail::index_graph(outputs);
  std::vector<std::string> names;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!g.nodes[i]->is_variable()) continue;
    if (which == 2 || (which == 1) == g.is_aux[i]) names.push_back(g.nodes[i]->name);
  }
  return names;
}

std::string output_name(const Entry& e) {
  const Node& n = *e.node;
  if (n.is_variable()) return n.name;
  if (n.op->list_outputs) return n.name + "_" + n.op->list_outputs(n.param).at(e.index);
  if (n.num_visible_outputs() == 1) return n.name + "_output";
  return cat(n.name, "_output", e.index);
}

}  // namespace

std::vector<std::string> Symbol::list_arguments() const { return list_variables(outputs_, 0); }
std::vector<std::string> Symbol::list_auxiliary_states() const { return list_variables(outputs_, 1); }
std::vector<std::string> Symbol::list_inputs() const { return list_variables(outputs_, 2); }

std::vector<std::string> Symbol::list_outputs() const {
  std::vector<std::string> names;
  for (const auto& e : outputs_) names.push_back(output_name(e));
  return names;
}

Symbol Symbol::get_internals() const {
  std::vector<Entry> outs;
  symbol::detail::dfs_visit(outputs_, [&](const NodePtr& n) {
    for (uint32_t i = 0; i < n->num_visible_outputs(); ++i) outs.push_back(Entry{n, i});
  });
  return Symbol(std::move(outs));
}

Symbol Symbol::get_children() const {
  std::vector<Entry> children;
  std::vector<const Node*> seen;
  for (const auto& e : outputs_) {
    if (std::find(seen.begin(), seen.end(), e.node.get()) != seen.end()) continue;
    seen.push_back(e.node.get());
    children.insert(children.end(), e.node->inputs.begin(), e.node->inputs.end());
  }
  return Symbol(std::move(children));
}

Symbol Symbol::operator[](size_t i) const {
  BRAID_CHECK(i < outputs_.size(), "Symbol: output index ", i, " is out of range; the symbol has ", outputs_.size(),
              " outputs");
  return Symbol({outputs_[i]});
}

Symbol Symbol::operator[](const std::string& name) const {
  auto names = list_outputs();
  std::string all;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return (*this)[i];
    all += cat(i ? ", " : "", names[i]);
  }
  throw Error(cat("Symbol: no output named '", name, "'; the outputs are: ", all));
}

std::optional<std::string> Symbol::attr(const std::string& key) const {
  const auto& attrs = single_node("attr").attrs;
  auto it = attrs.find(key);
  if (it == attrs.end()) return std::nullopt;
  return it->second;
}

op::AttrMap Symbol::list_attr() const { return single_node("list_attr").attrs; }

std::map<std::string, op::AttrMap> Symbol::attr_dict() const {
  std::map<std::string, op::AttrMap> out;
  symbol::detail::dfs_visit(outputs_, [&](const NodePtr& n) {
    if (!n->attrs.empty()) out[n->name] = n->attrs;
  });
  return out;
}

void Symbol::set_attr(const std::string& key, const std::string& value) {
  single_node("set_attr");
  Node& n = *outputs_[0].node;
  if (n.op && !symbol::is_hidden_key(key)) {
    auto attrs = n.attrs;
    attrs[key] = value;
    std::swap(n.attrs, attrs);
    try {
      symbol::parse_node_params(n);  // an operator parameter: the node's op must accept it
    } catch (...) {
      std::swap(n.attrs, attrs);
      throw;
    }
    return;
  }
  n.attrs[key] = value;
}

}  // namespace braid
