// Golden values: several steps of every optimizer (weight decay, rescale_grad, clip_gradient,
// momentum, lr/wd multipliers by name, a stateful scheduler, float32 and float16 with
// multi_precision) against mxnet_reference.py, an independent NumPy implementation of MXNet's
// update rules in float64.
#include <gtest/gtest.h>

#include "braid/base/half.h"
#include "optim_runner.h"
#include "python_reference.h"

namespace braid::test {
namespace {

using P = std::map<std::string, std::string>;

std::vector<RunCase> cases() {
  const DType f32 = DType::Float32, f16 = DType::Float16;
  std::vector<RunCase> c = {
      {.name = "sgd", .optimizer = "sgd", .params = P{{"learning_rate", "0.1"}}},
      {.name = "sgd_wd_rescale_clip",
       .optimizer = "SGD",
       .params = P{{"learning_rate", "0.1"}, {"wd", "0.05"}, {"rescale_grad", "0.5"}, {"clip_gradient", "0.3"}}},
      {.name = "sgd_momentum",
       .optimizer = "sgd",
       .params = P{{"learning_rate", "0.1"},
                   {"momentum", "0.9"},
                   {"wd", "0.01"},
                   {"rescale_grad", "0.8"},
                   {"clip_gradient", "0.5"}},
       .lr_mult = {{"fc_bias", 2.0}},
       .wd_mult = {{"fc_bias", 0.5}}},
      {.name = "sgd_momentum_f32",
       .optimizer = "sgd",
       .params = P{{"learning_rate", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}},
       .dtype = f32},
      {.name = "sgd_momentum_mp",
       .optimizer = "sgd",
       .params = P{{"learning_rate", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}, {"clip_gradient", "1.0"}},
       .dtype = f16},
      {.name = "sgd_mp", .optimizer = "sgd", .params = P{{"learning_rate", "0.05"}, {"wd", "0.02"}}, .dtype = f16},
      {.name = "sgd_no_names",
       .optimizer = "sgd",
       .params = P{{"learning_rate", "0.1"}, {"wd", "0.1"}},
       .idx2name = {}},
      {.name = "sgd_factor_scheduler",
       .optimizer = "sgd",
       .params = P{{"momentum", "0.5"}},
       .steps = 6,
       .factor_scheduler = FactorSpec{2, 0.5, 1e-8, 0.2}},
      {.name = "sgd_scheduler_overridden_by_learning_rate",
       .optimizer = "sgd",
       .params = P{{"learning_rate", "0.3"}, {"begin_num_update", "3"}},
       .steps = 5,
       .factor_scheduler = FactorSpec{2, 0.5, 0.05, 0.2}},
      {.name = "nag",
       .optimizer = "nag",
       .params = P{{"learning_rate", "0.1"},
                   {"momentum", "0.9"},
                   {"wd", "0.01"},
                   {"clip_gradient", "0.4"},
                   {"rescale_grad", "0.7"}}},
      {.name = "nag_mp", .optimizer = "nag", .params = P{{"learning_rate", "0.1"}, {"momentum", "0.8"}}, .dtype = f16},
      {.name = "nag_no_momentum", .optimizer = "nag", .params = P{{"learning_rate", "0.1"}, {"wd", "0.01"}}},
      {.name = "adam",
       .optimizer = "adam",
       .params = P{{"learning_rate", "0.01"},
                   {"wd", "0.01"},
                   {"rescale_grad", "0.6"},
                   {"clip_gradient", "0.5"},
                   {"beta1", "0.8"},
                   {"beta2", "0.95"},
                   {"epsilon", "1e-6"}},
       .lr_mult = {{"fc_weight", 0.5}}},
      {.name = "adam_defaults", .optimizer = "Adam", .params = P{{"learning_rate", "0.01"}}},
      {.name = "adam_f32", .optimizer = "adam", .params = P{{"learning_rate", "0.01"}, {"wd", "0.01"}}, .dtype = f32},
      {.name = "adam_mp", .optimizer = "adam", .params = P{{"learning_rate", "0.01"}, {"wd", "0.01"}}, .dtype = f16},
      {.name = "adamw",
       .optimizer = "adamw",
       .params = P{{"learning_rate", "0.01"}, {"wd", "0.1"}, {"clip_gradient", "0.7"}, {"rescale_grad", "0.9"}},
       .wd_mult = {{"fc_bias", 1.0}}},
      {.name = "adamw_mp", .optimizer = "adamw", .params = P{{"learning_rate", "0.01"}}, .dtype = f16},
      {.name = "rmsprop",
       .optimizer = "rmsprop",
       .params = P{{"learning_rate", "0.01"}, {"gamma1", "0.8"}, {"wd", "0.01"}, {"rescale_grad", "0.5"}}},
      {.name = "rmsprop_clip_weights",
       .optimizer = "rmsprop",
       .params = P{{"learning_rate", "0.5"}, {"clip_weights", "0.6"}, {"clip_gradient", "0.9"}}},
      {.name = "rmsprop_centered",
       .optimizer = "rmsprop",
       .params = P{{"learning_rate", "0.01"},
                   {"centered", "True"},
                   {"gamma1", "0.85"},
                   {"gamma2", "0.7"},
                   {"wd", "0.02"},
                   {"clip_gradient", "0.6"}}},
      {.name = "rmsprop_centered_mp",
       .optimizer = "rmsprop",
       .params = P{{"learning_rate", "0.01"}, {"centered", "True"}},
       .dtype = f16},
      {.name = "adagrad",
       .optimizer = "adagrad",
       .params = P{{"learning_rate", "0.1"},
                   {"wd", "0.01"},
                   {"eps", "1e-6"},
                   {"clip_gradient", "0.8"},
                   {"rescale_grad", "0.9"}}},
      {.name = "adagrad_mp", .optimizer = "adagrad", .params = P{{"learning_rate", "0.1"}}, .dtype = f16},
      {.name = "adadelta",
       .optimizer = "adadelta",
       .params =
           P{{"rho", "0.85"}, {"epsilon", "1e-4"}, {"wd", "0.01"}, {"rescale_grad", "0.5"}, {"clip_gradient", "1.0"}}},
      {.name = "adadelta_mp", .optimizer = "adadelta", .params = P{{"wd", "0.01"}}, .dtype = f16},
  };
  return c;
}

TEST(OptimizerReference, EveryOptimizerMatchesTheNumPyReference) {
  ASSERT_TRUE(python_has("numpy")) << "/usr/bin/python3 cannot import numpy; run scripts/install-deps.sh";
  nlohmann::json all = nlohmann::json::array();
  for (const auto& c : cases()) all.push_back(to_json(c));
  nlohmann::json expected = run_reference("mxnet_reference.py", all);
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    BraidRun run = run_braid(c);
    Trajectory want = from_json(expected.at(c.name));
    if (c.dtype == DType::Float16) {
      EXPECT_LT(max_abs_diff(run.masters, want), 1e-6);
      for (size_t s = 0; s < run.weights.size(); ++s)  // the weight is the master rounded to float16
        for (size_t p = 0; p < run.weights[s].size(); ++p)
          for (size_t k = 0; k < run.weights[s][p].size(); ++k)
            ASSERT_EQ(run.weights[s][p][k], half_to_float(float_to_half(static_cast<float>(run.masters[s][p][k]))));
    } else {
      EXPECT_LT(max_abs_diff(run.weights, want), c.dtype == DType::Float64 ? 1e-9 : 1e-6);
    }
  }
}

}  // namespace
}  // namespace braid::test
