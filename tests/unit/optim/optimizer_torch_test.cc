// The optimizers against torch.optim where the two define the same update: constant learning
// rate, no rescale_grad or clip_gradient, the same weight decay on every parameter (no names, so
// no MXNet wd_mult defaults). Where only the place of epsilon differs (Adam, RMSProp, AdaGrad)
// the difference stays far below the tolerance; docs/optim.md lists the differences.
#include <gtest/gtest.h>

#include "optim_runner.h"
#include "python_reference.h"

namespace braid::test {
namespace {

struct TorchCase {
  RunCase braid;
  std::string torch_class;
  nlohmann::json torch_kwargs;
};

std::vector<TorchCase> torch_cases() {
  using P = std::map<std::string, std::string>;
  auto run = [](std::string name, std::string opt, P params) {
    return RunCase{
        .name = std::move(name), .optimizer = std::move(opt), .params = std::move(params), .idx2name = {}, .steps = 5};
  };
  return {
      {run("sgd_momentum", "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}}),
       "SGD",
       {{"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.01}}},
      {run("nesterov", "nag", {{"learning_rate", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}}),
       "SGD",
       {{"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.01}, {"nesterov", true}}},
      {run("adam", "adam", {{"learning_rate", "0.01"}, {"wd", "0.01"}, {"beta1", "0.8"}, {"beta2", "0.99"}}),
       "Adam",
       {{"lr", 0.01}, {"weight_decay", 0.01}, {"betas", {0.8, 0.99}}, {"eps", 1e-8}}},
      {run("adamw", "adamw", {{"learning_rate", "0.01"}, {"wd", "0.1"}, {"epsilon", "1e-6"}}),
       "AdamW",
       {{"lr", 0.01}, {"weight_decay", 0.1}, {"eps", 1e-6}}},
      {run("rmsprop", "rmsprop", {{"learning_rate", "0.01"}, {"gamma1", "0.9"}, {"wd", "0.01"}}),
       "RMSprop",
       {{"lr", 0.01}, {"alpha", 0.9}, {"eps", 1e-8}, {"weight_decay", 0.01}}},
      {run("rmsprop_centered", "rmsprop",
           {{"learning_rate", "0.01"}, {"gamma1", "0.9"}, {"gamma2", "0.8"}, {"centered", "True"}}),
       "RMSprop",
       {{"lr", 0.01}, {"alpha", 0.9}, {"eps", 1e-8}, {"momentum", 0.8}, {"centered", true}}},
      {run("adagrad", "adagrad", {{"learning_rate", "0.1"}, {"eps", "1e-10"}}),
       "Adagrad",
       {{"lr", 0.1}, {"eps", 1e-10}}},
      {run("adadelta", "adadelta", {{"rho", "0.9"}, {"epsilon", "1e-6"}}),
       "Adadelta",
       {{"lr", 1.0}, {"rho", 0.9}, {"eps", 1e-6}}},
  };
}

TEST(OptimizerTorch, MatchesTorchOptimWhereTheSemanticsCoincide) {
  ASSERT_TRUE(python_has("numpy, torch"))
      << "/usr/bin/python3 cannot import numpy and torch; run scripts/install-deps.sh";
  nlohmann::json all = nlohmann::json::array();
  for (const auto& c : torch_cases()) {
    nlohmann::json j = to_json(c.braid);
    j["torch"] = {{"class", c.torch_class}, {"kwargs", c.torch_kwargs}};
    all.push_back(j);
  }
  nlohmann::json expected = run_reference("torch_reference.py", all);
  for (const auto& c : torch_cases()) {
    SCOPED_TRACE(c.braid.name);
    EXPECT_LT(max_abs_diff(run_braid(c.braid).weights, from_json(expected.at(c.braid.name))), 1e-6);
  }
}

}  // namespace
}  // namespace braid::test
