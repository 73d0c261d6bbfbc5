// MXNet's symbol JSON: writing what MXNet 1.9 writes, reading every version since 0.8.
#include <nlohmann/json.hpp>

#include "braid/base/error.h"
#include "braid/base/np_shape.h"
#include "braid/io/dmlc_json.h"
#include "braid/io/file.h"
#include "braid/io/json_limits.h"
#include "braid/op/param_reader.h"
#include "braid/op/registry.h"
#include "braid/symbol/symbol.h"
#include "graph.h"

namespace braid {

using nlohmann::json;
using nlohmann::ordered_json;
using symbol::Entry;
using symbol::Node;
using symbol::NodePtr;

namespace {

constexpr int kWrittenVersion = 10901;  // MXNet 1.9.1

ordered_json entry_json(uint32_t node, uint32_t index) { return ordered_json::array({node, index, 0}); }

// Control-flow nodes keep their subgraphs in attributes subgraph0, subgraph1, ...; MXNet's JSON
// has them in the node's "subgraphs" array.
std::string subgraph_key(size_t i) { return cat("subgraph", i); }

}  // namespace

std::string Symbol::tojson(bool np_shape) const {
  auto g = symbol::detail::index_graph(outputs_);
  ordered_json nodes = ordered_json::array(), arg_nodes = ordered_json::array();
  ordered_json row_ptr = ordered_json::array(), heads = ordered_json::array();
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = *g.nodes[i];
    ordered_json j;
    j["op"] = n.is_variable() ? "null" : n.op_name;
    j["name"] = n.name;
    ordered_json attrs = ordered_json::object(), subgraphs = ordered_json::array();
    for (const auto& [k, v] : n.attrs) attrs[k] = v;
    for (size_t s = 0; !n.is_variable() && attrs.contains(subgraph_key(s)); ++s) {
      subgraphs.push_back(ordered_json::parse(Symbol::fromjson(n.attrs.at(subgraph_key(s))).tojson()));
      attrs.erase(subgraph_key(s));
    }
    if (!attrs.empty()) j["attrs"] = attrs;
    ordered_json inputs = ordered_json::array();
    for (const auto& e : n.inputs) inputs.push_back(entry_json(g.node_id(e.node.get()), e.index));
    j["inputs"] = inputs;
    if (!subgraphs.empty()) j["subgraphs"] = subgraphs;
    nodes.push_back(j);
    if (n.is_variable()) arg_nodes.push_back(i);
  }
  for (uint32_t r : g.row_ptr) row_ptr.push_back(r);
  for (const auto& e : outputs_) heads.push_back(entry_json(g.node_id(e.node.get()), e.index));
  ordered_json doc;
  doc["nodes"] = nodes;
  doc["arg_nodes"] = arg_nodes;
  doc["node_row_ptr"] = row_ptr;
  doc["heads"] = heads;
  doc["attrs"] = ordered_json::object({{"mxnet_version", ordered_json::array({"int", kWrittenVersion})}});
  if (np_shape) doc["attrs"]["is_np_shape"] = ordered_json::array({"int", 1});
  return io::dump_dmlc_json(doc);
}

namespace {

/// MXNet before 0.9.4 kept these user attributes under plain keys; later versions hide them
/// (`ctx_group` -> `__ctx_group__`, `weight_lr_mult` -> `__weight_lr_mult__`).
bool legacy_hidden(const std::string& key) {
  for (const char* h : {"ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage"}) {
    std::string s = h;
    if (key == s || (key.size() > s.size() && key.ends_with(s))) return true;
  }
  return false;
}

op::AttrMap read_attrs(const json& j, int version, const std::string& where) {
  op::AttrMap attrs;
  for (const char* key : {"param", "attr", "attrs"}) {
    if (!j.contains(key)) continue;
    BRAID_CHECK(j[key].is_object(), where, ": \"", key, "\" must be an object of strings");
    for (const auto& [k, v] : j[key].items()) {
      BRAID_CHECK(v.is_string(), where, ": attribute ", k, " must be a string, not ", v.dump());
      bool hide = version < 904 && !symbol::is_hidden_key(k) && legacy_hidden(k);
      attrs[hide ? "__" + k + "__" : k] = v.get<std::string>();
    }
  }
  return attrs;
}

Entry read_entry(const json& e, const std::vector<NodePtr>& nodes, const std::string& where) {
  BRAID_CHECK(e.is_array() && (e.size() == 2 || e.size() == 3), where,
              ": an entry must be [node, output] or [node, output, version], not ", e.dump());
  for (const auto& x : e) BRAID_CHECK(x.is_number_integer() && x.get<int64_t>() >= 0, where, ": bad entry ", e.dump());
  auto id = e[0].get<uint64_t>(), index = e[1].get<uint64_t>();
  BRAID_CHECK(id < nodes.size() && nodes[id], where, ": entry ", e.dump(),
              " refers to a node that is not listed before it");
  BRAID_CHECK(index < nodes[id]->num_outputs(), where, ": entry ", e.dump(), " asks for output ", index, " of node '",
              nodes[id]->name, "', which has ", nodes[id]->num_outputs());
  return Entry{nodes[id], static_cast<uint32_t>(index)};
}

NodePtr read_node(const json& j, size_t i, const std::vector<NodePtr>& nodes, int version) {
  std::string where = cat("symbol JSON node ", i);
  BRAID_CHECK(j.is_object() && j.contains("op") && j["op"].is_string() && j.contains("name") && j["name"].is_string(),
              where, ": a node needs string fields \"op\" and \"name\"");
  auto n = std::make_shared<Node>();
  n->name = j["name"].get<std::string>();
  where = cat(where, " ('", n->name, "')");
  n->attrs = read_attrs(j, version, where);
  if (j.contains("subgraphs")) {
    BRAID_CHECK(j["subgraphs"].is_array(), where, ": \"subgraphs\" must be an array of graphs");
    for (size_t s = 0; s < j["subgraphs"].size(); ++s) n->attrs[subgraph_key(s)] = j["subgraphs"][s].dump();
  }
  std::string op = j["op"].get<std::string>();
  if (op != "null") {
    n->op = op::Registry::get().find_or_null(op);
    BRAID_CHECK(n->op, "operator '", op, "' of node '", n->name,
                "' is not supported by Braid; `braid ops list` shows the supported operators");
    n->op_name = op;
    symbol::parse_node_params(*n);
  }
  if (j.contains("inputs")) {
    BRAID_CHECK(j["inputs"].is_array(), where, ": \"inputs\" must be an array");
    for (const auto& e : j["inputs"]) n->inputs.push_back(read_entry(e, nodes, where));
  }
  if (n->op) {
    size_t want = n->op->list_arguments(n->param).size() + n->op->list_aux(n->param).size();
    if (version < 900 && n->inputs.size() < want) {
      // MXNet 0.8 did not list auxiliary states; 0.9 made them variables named after the node.
      auto aux = n->op->list_aux(n->param);
      auto args = n->op->list_arguments(n->param);
      args.insert(args.end(), aux.begin(), aux.end());
      for (size_t k = n->inputs.size(); k < want; ++k)
        n->inputs.push_back(Symbol::Variable(n->name + "_" + args[k]).outputs()[0]);
    }
    BRAID_CHECK(n->inputs.size() == want, where, ": operator ", op, " takes ", want, " inputs but the node has ",
                n->inputs.size());
  } else {
    BRAID_CHECK(n->inputs.empty(), where, ": a variable (op \"null\") cannot have inputs");
  }
  return n;
}

// As MXNet since 1.6: a graph written without NumPy shape semantics and read under them has its
// variables' 0 dimensions (unknown then) turned into -1 (unknown now).
void read_zero_dims_as_unknown(std::vector<NodePtr>& nodes) {
  for (const NodePtr& n : nodes) {
    auto it = n->attrs.find("__shape__");
    if (n->op || it == n->attrs.end()) continue;
    std::vector<int64_t> dims = op::parse_tuple(it->second);
    for (int64_t& d : dims)
      if (d == 0) d = -1;
    it->second = Shape(dims).str();
  }
}

bool written_with_numpy_shapes(const json& doc) {
  if (!doc.contains("attrs") || !doc["attrs"].contains("is_np_shape")) return false;
  const auto& v = doc["attrs"]["is_np_shape"];
  return v.is_array() && v.size() == 2 && v[1].is_number_integer() && v[1].get<int>() != 0;
}

}  // namespace

Symbol Symbol::fromjson(const std::string& text) {
  const json doc = io::parse_json(text, "symbol JSON");
  BRAID_CHECK(doc.is_object() && doc.contains("nodes") && doc["nodes"].is_array() && doc.contains("heads") &&
                  doc["heads"].is_array(),
              "symbol JSON needs \"nodes\" and \"heads\" arrays; is this a *-symbol.json file?");
  int version = 800;  // files without a version are MXNet 0.8's
  if (doc.contains("attrs") && doc["attrs"].contains("mxnet_version")) {
    const auto& v = doc["attrs"]["mxnet_version"];
    BRAID_CHECK(v.is_array() && v.size() == 2 && v[1].is_number_integer(),
                "symbol JSON: attrs.mxnet_version must be [\"int\", N], not ", v.dump());
    version = v[1].get<int>();
  }
  std::vector<NodePtr> nodes(doc["nodes"].size());
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = read_node(doc["nodes"][i], i, nodes, version);
  if (np_shape() && !written_with_numpy_shapes(doc)) read_zero_dims_as_unknown(nodes);
  std::vector<Entry> heads;
  for (const auto& h : doc["heads"]) heads.push_back(read_entry(h, nodes, "symbol JSON heads"));
  BRAID_CHECK(!heads.empty(), "symbol JSON has no heads (outputs)");
  return Symbol(std::move(heads));
}

void Symbol::save(const std::string& path, bool np_shape) const { io::write_file_atomically(path, tojson(np_shape)); }

Symbol Symbol::load(const std::string& path) {
  std::string text = io::read_file(path, io::kMaxTextFileBytes);
  try {
    return fromjson(text);
  } catch (const Error& e) {
    throw Error(cat(path, ": ", e.what()));
  }
}

}  // namespace braid
