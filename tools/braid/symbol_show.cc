// braid symbol show: a symbol file as a table of its nodes, with inferred shapes.
#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_set>

#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "braid/symbol/symbol.h"
#include "commands.h"

namespace braid::cli {
namespace {

/// "data=1,1,28,28" -> ("data", (1, 1, 28, 28)).
std::pair<std::string, Shape> parse_shape_option(const std::string& s) {
  auto eq = s.find('=');
  BRAID_CHECK(eq != std::string::npos && eq > 0, "--shape takes NAME=D0,D1,..., not '", s, "'");
  try {
    return {s.substr(0, eq), Shape(op::parse_tuple("(" + s.substr(eq + 1) + ")"))};
  } catch (const Error&) {
    throw Error(cat("--shape takes NAME=D0,D1,... with integer dimensions, not '", s, "'"));
  }
}

}  // namespace

int symbol_show(const std::string& path, const std::vector<std::string>& shape_options, std::ostream& out) {
  Symbol symbol = Symbol::load(path);
  Symbol internals = symbol.get_internals();
  std::map<std::string, Shape> known;
  for (const auto& s : shape_options) known.insert(parse_shape_option(s));
  std::vector<Shape> shapes;
  if (!known.empty()) shapes = internals.infer_shape_partial(known).out;

  // One row per node, in file (depth-first) order; a node's shapes are those of its outputs.
  std::vector<const symbol::Node*> nodes;
  std::unordered_set<const symbol::Node*> listed;  // a set, not a search of `nodes`: graphs can be long
  std::map<const symbol::Node*, std::string> node_shapes;
  for (size_t i = 0; i < internals.outputs().size(); ++i) {
    const symbol::Node* n = internals.outputs()[i].node.get();
    if (listed.insert(n).second) nodes.push_back(n);
    if (!shapes.empty()) node_shapes[n] += (node_shapes[n].empty() ? "" : " ") + shapes[i].str();
  }
  std::vector<std::vector<std::string>> rows = {{"#", "node", "op", "inputs", known.empty() ? "" : "shape"}};
  for (size_t i = 0; i < nodes.size(); ++i) {
    const symbol::Node& n = *nodes[i];
    std::string inputs;
    for (const auto& e : n.inputs)
      inputs += cat(inputs.empty() ? "" : ", ", e.node->name, e.index ? cat("[", e.index, "]") : std::string());
    rows.push_back({std::to_string(i), n.name, n.is_variable() ? "variable" : n.op_name, inputs, node_shapes[&n]});
  }
  std::vector<size_t> width(5, 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c)
      line += r[c] + std::string(c + 1 < r.size() ? width[c] - r[c].size() + 2 : 0, ' ');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  out << nodes.size() << " nodes, " << symbol.list_arguments().size() << " arguments, "
      << symbol.list_auxiliary_states().size() << " auxiliary states, outputs: ";
  auto outputs = symbol.list_outputs();
  for (size_t i = 0; i < outputs.size(); ++i) out << (i ? ", " : "") << outputs[i];
  out << "\n";
  return 0;
}

}  // namespace braid::cli
