// metric::create: metrics by MXNet's registered names.
#include <algorithm>
#include <functional>
#include <optional>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/metric/metric.h"
#include "braid/op/param_reader.h"

namespace braid::metric {
namespace {

// Reads the keyword arguments of one metric; unknown ones are an error at finish().
class Kwargs {
 public:
  Kwargs(const std::string& metric, const std::map<std::string, std::string>& kw) : metric_(metric), kw_(kw) {}
  std::string str(const std::string& key, const std::string& fallback) {
    used_.push_back(key);
    auto it = kw_.find(key);
    return it == kw_.end() ? fallback : it->second;
  }
  std::optional<std::string> optional(const std::string& key) {
    used_.push_back(key);
    auto it = kw_.find(key);
    return it == kw_.end() ? std::nullopt : std::optional(it->second);
  }
  void finish() const {
    for (const auto& [k, v] : kw_) {
      if (std::find(used_.begin(), used_.end(), k) != used_.end()) continue;
      std::string known;
      for (const auto& u : used_) known += (known.empty() ? "" : ", ") + u;
      throw Error(cat("metric '", metric_, "' has no argument '", k, "' (it takes: ", known, ")"));
    }
  }

 private:
  std::string metric_;
  const std::map<std::string, std::string>& kw_;
  std::vector<std::string> used_;
};

using Factory = std::function<MetricPtr(Kwargs&)>;

const std::vector<std::pair<std::vector<std::string>, Factory>>& factories() {
  static const std::vector<std::pair<std::vector<std::string>, Factory>> table = {
      {{"accuracy", "acc"},
       [](Kwargs& k) {
         int axis = static_cast<int>(op::parse_int(k.str("axis", "1")));
         return std::make_shared<Accuracy>(axis, k.str("name", "accuracy"));
       }},
      {{"topkaccuracy", "top_k_accuracy", "top_k_acc"},
       [](Kwargs& k) {
         auto top_k = k.optional("top_k");
         BRAID_CHECK(top_k,
                     "it needs top_k (above 1), e.g. create(\"top_k_accuracy\", "
                     "{{\"top_k\", \"5\"}})");
         return std::make_shared<TopKAccuracy>(static_cast<int>(op::parse_int(*top_k)),
                                               k.str("name", "top_k_accuracy"));
       }},
      {{"f1"}, [](Kwargs& k) { return std::make_shared<F1>(k.str("average", "macro"), k.str("name", "f1")); }},
      {{"mae"}, [](Kwargs& k) { return std::make_shared<MAE>(k.str("name", "mae")); }},
      {{"mse"}, [](Kwargs& k) { return std::make_shared<MSE>(k.str("name", "mse")); }},
      {{"rmse"}, [](Kwargs& k) { return std::make_shared<RMSE>(k.str("name", "rmse")); }},
      {{"crossentropy", "ce", "cross-entropy"},
       [](Kwargs& k) {
         double eps = op::parse_float(k.str("eps", "1e-12"));
         return std::make_shared<CrossEntropy>(eps, k.str("name", "cross-entropy"));
       }},
      {{"loss"}, [](Kwargs& k) { return std::make_shared<Loss>(k.str("name", "loss")); }},
      {{"composite", "compositeevalmetric"},
       [](Kwargs& k) {
         return std::make_shared<CompositeEvalMetric>(std::vector<MetricPtr>{}, k.str("name", "composite"));
       }},
  };
  return table;
}

}  // namespace

MetricPtr create(const std::string& name, const std::map<std::string, std::string>& kwargs) {
  const std::string key = to_lower(name);
  std::string known;
  for (const auto& [names, make] : factories()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) {
      Kwargs k(key, kwargs);
      MetricPtr m;
      try {
        m = make(k);
      } catch (const Error& e) {
        throw Error(cat("metric '", name, "': ", e.what()));
      }
      k.finish();
      return m;
    }
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  }
  throw Error(cat("unknown metric '", name, "'; known metrics: ", known));
}

MetricPtr create(const std::vector<std::string>& names) {
  auto composite = std::make_shared<CompositeEvalMetric>();
  for (const auto& n : names) composite->add(create(n));
  return composite;
}

}  // namespace braid::metric
