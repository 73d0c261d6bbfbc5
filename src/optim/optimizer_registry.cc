// optim::create and the registry of optimizer types (MXNet's Optimizer.register / create).
#include <algorithm>
#include <mutex>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/base/suggest.h"
#include "braid/optim/optimizers.h"

namespace braid::optim {
namespace {

using Factory = std::function<std::unique_ptr<Optimizer>()>;

template <class T>
Factory factory() {
  return [] { return std::make_unique<T>(); };
}

struct OptimizerRegistry {
  std::mutex mu;
  std::map<std::string, Factory> factories{
      {"sgd", factory<SGD>()},         {"ccsgd", factory<SGD>()},  // MXNet's deprecated alias
      {"nag", factory<NAG>()},         {"adam", factory<Adam>()},       {"adamw", factory<AdamW>()},
      {"rmsprop", factory<RMSProp>()}, {"adagrad", factory<AdaGrad>()}, {"adadelta", factory<AdaDelta>()},
  };
};

OptimizerRegistry& registry() {
  static OptimizerRegistry r;
  return r;
}

}  // namespace

std::unique_ptr<Optimizer> create(const std::string& name, const std::map<std::string, std::string>& params) {
  const std::string key = to_lower(name);
  Factory make;
  {
    OptimizerRegistry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(key);
    if (it != r.factories.end()) make = it->second;
  }
  if (!make) {
    std::vector<std::string> known = optimizer_names();
    throw Error(cat("unknown optimizer '", name, "'", did_you_mean(key, known), "; registered: ", comma_list(known),
                    " (add your own with optim::register_optimizer)"));
  }
  std::unique_ptr<Optimizer> opt = make();
  BRAID_CHECK(opt != nullptr, "the factory registered for optimizer '", key, "' returned nothing");
  opt->name_ = key;
  for (const auto& [k, v] : params) opt->set_param(k, v);
  return opt;
}

void register_optimizer(const std::string& name, std::function<std::unique_ptr<Optimizer>()> factory) {
  BRAID_CHECK(!name.empty() && factory, "register_optimizer needs a name and a factory");
  OptimizerRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[to_lower(name)] = std::move(factory);
}

std::vector<std::string> optimizer_names() {
  OptimizerRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [k, f] : r.factories) out.push_back(k);
  return out;
}

}  // namespace braid::optim
