#include "braid/symbol/compose.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/op/input_slots.h"
#include "braid/op/registry.h"

namespace braid::sym {
namespace {

using symbol::Entry;
using symbol::Node;

/// MXNet's NameManager: automatic names count per hint; a prefix applies to every name.
struct NameManager {
  std::string prefix;
  std::map<std::string, int> counters;

  std::string get(const std::string& name, const std::string& hint) {
    if (!name.empty()) return prefix + name;
    int& n = counters[hint];
    return cat(prefix, hint, n++);
  }
};

/// The managers of the nested Prefix scopes; the bottom one is the thread's default.
std::vector<std::unique_ptr<NameManager>>& managers() {
  thread_local std::vector<std::unique_ptr<NameManager>> stack = [] {
    std::vector<std::unique_ptr<NameManager>> s;
    s.push_back(std::make_unique<NameManager>());
    return s;
  }();
  return stack;
}

NameManager& current_manager() { return *managers().back(); }

op::AttrMap& scope_attrs() {
  thread_local op::AttrMap attrs;
  return attrs;
}

Symbol compose(const std::string& op_spelling, const NamedInputs& inputs, const op::AttrMap& attrs,
               const std::string& name, const std::string& hint) {
  const op::OpDef& def = op::Registry::get().find(op_spelling);
  auto node = std::make_shared<Node>();
  node->op = &def;
  node->op_name = def.name;
  node->attrs = attrs;
  for (const auto& [k, v] : current_scope_attrs()) node->attrs.emplace(k, v);
  node->name = current_manager().get(name, hint.empty() ? to_lower(op_spelling) : hint);
  // MXNet copies the node's attributes, as given, onto the variables it makes for missing inputs.
  const op::AttrMap given_attrs = node->attrs;
  size_t positional = 0;
  for (const auto& [arg, s] : inputs) {
    if (arg.empty()) ++positional;
  }
  if (!def.key_var_num_args.empty() && !node->attrs.count(def.key_var_num_args))
    node->attrs[def.key_var_num_args] = std::to_string(positional);
  symbol::parse_node_params(*node);

  std::vector<std::string> arg_names = def.list_arguments(node->param);
  std::vector<std::string> aux_names = def.list_aux(node->param);
  std::vector<std::string> all = arg_names;
  all.insert(all.end(), aux_names.begin(), aux_names.end());
  std::vector<std::string> names;
  for (const auto& [arg, s] : inputs) {
    BRAID_CHECK(s.num_outputs() == 1, "operator ", def.name, " (node ", node->name, "): input ",
                arg.empty() ? cat("#", names.size()) : arg, " is a symbol with ", s.num_outputs(),
                " outputs; pick one with operator[]");
    names.push_back(arg);
  }
  std::vector<size_t> where = op::input_slots(def.name, all, names, cat(" (node ", node->name, ")"));
  std::vector<std::optional<Entry>> slots(all.size());
  for (size_t i = 0; i < inputs.size(); ++i) slots[where[i]] = inputs[i].second.outputs()[0];
  for (size_t i = 0; i < all.size(); ++i) {
    if (slots[i]) {
      node->inputs.push_back(*slots[i]);
    } else {
      // MXNet names a missing input after the node; it stays an argument or an aux state by
      // its position.
      node->inputs.push_back(Symbol::Variable(node->name + "_" + all[i], given_attrs).outputs()[0]);
    }
  }
  std::vector<Entry> outs;
  for (uint32_t i = 0; i < node->num_visible_outputs(); ++i) outs.push_back(Entry{node, i});
  return Symbol(std::move(outs));
}

}  // namespace

Symbol make(const std::string& op, const NamedInputs& inputs, const op::AttrMap& attrs, const std::string& name) {
  return compose(op, inputs, attrs, name, "");
}

Symbol make(const std::string& op, const std::vector<Symbol>& inputs, const op::AttrMap& attrs,
            const std::string& name) {
  NamedInputs named;
  for (const auto& s : inputs) named.emplace_back("", s);
  return compose(op, named, attrs, name, "");
}

Prefix::Prefix(std::string prefix) {
  managers().push_back(std::make_unique<NameManager>(NameManager{std::move(prefix), {}}));
}

Prefix::~Prefix() { managers().pop_back(); }

AttrScope::AttrScope(const op::AttrMap& attrs) : prev_(scope_attrs()) {
  for (const auto& [k, v] : attrs) scope_attrs()[symbol::is_hidden_key(k) ? k : "__" + k + "__"] = v;
}

AttrScope::~AttrScope() { scope_attrs() = prev_; }

const op::AttrMap& current_scope_attrs() { return scope_attrs(); }

namespace {

Symbol binary(const char* op, const char* hint, const Symbol& a, const Symbol& b) {
  return compose(op, {{"", a}, {"", b}}, {}, "", hint);
}

Symbol scalar(const char* op, const char* hint, const Symbol& a, double s) {
  std::ostringstream os;
  os.precision(17);
  os << s;
  return compose(op, {{"", a}}, {{"scalar", os.str()}}, "", hint);
}

}  // namespace
}  // namespace braid::sym

namespace braid {

Symbol operator+(const Symbol& a, const Symbol& b) { return sym::binary("elemwise_add", "_plus", a, b); }
Symbol operator-(const Symbol& a, const Symbol& b) { return sym::binary("elemwise_sub", "_minus", a, b); }
Symbol operator*(const Symbol& a, const Symbol& b) { return sym::binary("elemwise_mul", "_mul", a, b); }
Symbol operator/(const Symbol& a, const Symbol& b) { return sym::binary("elemwise_div", "_div", a, b); }
Symbol operator+(const Symbol& a, double s) { return sym::scalar("_plus_scalar", "_plusscalar", a, s); }
Symbol operator-(const Symbol& a, double s) { return sym::scalar("_minus_scalar", "_minusscalar", a, s); }
Symbol operator*(const Symbol& a, double s) { return sym::scalar("_mul_scalar", "_mulscalar", a, s); }
Symbol operator/(const Symbol& a, double s) { return sym::scalar("_div_scalar", "_divscalar", a, s); }
Symbol operator+(double s, const Symbol& a) { return a + s; }
Symbol operator-(double s, const Symbol& a) { return sym::scalar("_rminus_scalar", "_rminusscalar", a, s); }
Symbol operator*(double s, const Symbol& a) { return a * s; }
Symbol operator/(double s, const Symbol& a) { return sym::scalar("_rdiv_scalar", "_rdivscalar", a, s); }

}  // namespace braid
