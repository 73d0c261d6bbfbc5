#include "braid/op/registry.h"

#include <algorithm>

#include "braid/base/error.h"
#include "op_util.h"
#include "register_all.h"

namespace braid::op {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                         prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

Registry& Registry::get() {
  static Registry* reg = [] {
    auto* r = new Registry();
    detail::register_all_ops(*r);
    return r;
  }();
  return *reg;
}

OpDef& Registry::add(OpDef def) {
  BRAID_CHECK(!ops_.count(def.name) && !aliases_.count(def.name), "operator ", def.name,
              " is registered twice");
  BRAID_CHECK(def.list_arguments && def.infer_shape && def.forward, "operator ", def.name,
              " is missing list_arguments, infer_shape or forward");
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
  std::vector<std::pair<size_t, std::string>> close;
  for (const auto& [n, def] : ops_) close.emplace_back(edit_distance(name, n), n);
  for (const auto& [a, n] : aliases_) close.emplace_back(edit_distance(name, a), a);
  std::sort(close.begin(), close.end());
  std::string hint;
  for (size_t i = 0; i < close.size() && i < 3 && close[i].first <= 3; ++i)
    hint += cat(hint.empty() ? "; did you mean " : ", ", close[i].second);
  throw Error(cat("unknown operator '", name, "'", hint));
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, def] : ops_) out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace braid::op
