#include "braid/op/registry.h"

#include <algorithm>

#include "braid/base/error.h"
#include "braid/base/suggest.h"
#include "op_util.h"
#include "register_all.h"

namespace braid::op {

Registry& Registry::get() {
  static Registry* reg = [] {
    auto* r = new Registry();
    detail::register_all_ops(*r);
    return r;
  }();
  return *reg;
}

OpDef& Registry::add(OpDef def) {
  BRAID_CHECK(!ops_.count(def.name) && !aliases_.count(def.name), "operator ", def.name, " is registered twice");
  BRAID_CHECK(def.list_arguments && def.infer_shape && (def.cpu.forward || def.runs_on_host()), "operator ", def.name,
              " is missing list_arguments, infer_shape or a CPU forward kernel");
  if (!def.num_visible_outputs) def.num_visible_outputs = def.num_outputs;
  if (!def.infer_type) {
    def.infer_type = [n = def.name](const std::any&, std::vector<DType>& in, std::vector<DType>& out,
                                    std::vector<DType>& aux) { detail::infer_same_type(n, in, out, aux); };
  }
  std::string name = def.name;
  auto& slot = ops_[name];
  slot = std::make_unique<OpDef>(std::move(def));
  return *slot;
}

void Registry::add_alias(const std::string& alias, const std::string& name) {
  BRAID_CHECK(ops_.count(name), "alias ", alias, " refers to unknown operator ", name);
  BRAID_CHECK(!ops_.count(alias) && !aliases_.count(alias), "alias ", alias, " is taken");
  aliases_[alias] = name;
}

const OpDef* Registry::find_or_null(const std::string& name) const {
  auto it = ops_.find(name);
  if (it != ops_.end()) return it->second.get();
  auto a = aliases_.find(name);
  return a == aliases_.end() ? nullptr : ops_.at(a->second).get();
}

const OpDef& Registry::find(const std::string& name) const {
  if (const OpDef* def = find_or_null(name)) return *def;
  std::vector<std::string> known;
  for (const auto& [n, def] : ops_) known.push_back(n);
  for (const auto& [a, n] : aliases_) known.push_back(a);
  throw Error(cat("unknown operator '", name, "'", did_you_mean(name, known)));
}

OpDef& Registry::at(const std::string& name) { return const_cast<OpDef&>(find(name)); }

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, def] : ops_) out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Registry::names_and_aliases() const {
  std::vector<std::string> out = names();
  for (const auto& [alias, name] : aliases_) out.push_back(alias);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace braid::op
