// The Optimizer API: creation by name, defaults, errors, user-registered optimizers, lazily
// created states, update counts, lr/wd multipliers (MXNet's name rules) and the scheduler.
#include <gtest/gtest.h>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/optim/optimizers.h"
#include "expect_error.h"

namespace braid::test {
namespace {

using optim::create;

TEST(OptimizerFactory, NamesAreCaseInsensitive) {
  for (std::string n : {"SGD", "sgd", "NAG", "Adam", "AdamW", "RMSProp", "AdaGrad", "AdaDelta", "ccSGD"}) {
    auto opt = create(n);
    std::string lower = n;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(ch));
    EXPECT_EQ(opt->name(), lower);
  }
}

TEST(OptimizerFactory, DefaultsAreMXNets) {
  auto p = create("sgd")->params();
  EXPECT_EQ(p["learning_rate"], "0.01");
  EXPECT_EQ(p["momentum"], "0");
  EXPECT_EQ(p["wd"], "0");
  EXPECT_EQ(p["rescale_grad"], "1");
  EXPECT_EQ(p["clip_gradient"], "None");
  EXPECT_EQ(p["multi_precision"], "False");
  EXPECT_EQ(p["lazy_update"], "True");
  EXPECT_EQ(p["begin_num_update"], "0");
  auto adam = create("adam")->params();
  EXPECT_EQ(adam["learning_rate"], "0.001");
  EXPECT_EQ(adam["beta1"], "0.9");
  EXPECT_EQ(adam["beta2"], "0.999");
  EXPECT_EQ(adam["epsilon"], "1e-08");
  auto rms = create("rmsprop")->params();
  EXPECT_EQ(rms["gamma1"], "0.9");
  EXPECT_EQ(rms["gamma2"], "0.9");
  EXPECT_EQ(rms["centered"], "False");
  EXPECT_EQ(rms["clip_weights"], "None");
  EXPECT_EQ(create("adagrad")->params()["eps"], "1e-07");
  auto ada = create("adadelta")->params();
  EXPECT_EQ(ada["rho"], "0.9");
  EXPECT_EQ(ada["epsilon"], "1e-05");
  EXPECT_EQ(create("adamw")->params()["wd"], "0.01");  // torch.optim.AdamW's default
}

TEST(OptimizerFactory, UnknownNamesSuggestAndList) {
  expect_error([] { create("adma"); }, {"unknown optimizer 'adma'", "did you mean adam", "registered: ", "sgd"});
  expect_error(
      [] {
        create("sgd", {{"momentom", "0.9"}});
      },
      {"optimizer sgd", "unknown parameter 'momentom'", "did you mean momentum", "it accepts", "learning_rate"});
  expect_error([] { create("sgd", {{"momentum", "fast"}}); }, {"optimizer sgd", "momentum=fast", "not a number"});
  expect_error([] { create("rmsprop", {{"centered", "maybe"}}); }, {"centered=maybe", "boolean"});
}

TEST(OptimizerFactory, ParamsRoundTripThroughTheirSpelling) {
  auto opt = create(
      "rmsprop", {{"learning_rate", "0.1"}, {"clip_gradient", "2.5"}, {"centered", "true"}, {"multi_precision", "1"}});
  EXPECT_EQ(opt->param("learning_rate"), "0.1");
  EXPECT_EQ(opt->clip_gradient(), 2.5);
  EXPECT_EQ(opt->param("centered"), "True");
  EXPECT_TRUE(opt->multi_precision());
  EXPECT_EQ(opt->state_names(), (std::vector<std::string>{"n", "g", "delta"}));
  opt->set_param("clip_gradient", "None");
  EXPECT_FALSE(opt->clip_gradient().has_value());
}

// A user optimizer without a fused operator: w -= lr * sign(grad) * scale (NDArray ops).
class SignSGD : public optim::Optimizer {
 public:
  SignSGD() : Optimizer("signsgd", 0.1) { declare("scale", &scale_); }

 protected:
  void step(const optim::UpdateStep& s) override {
    NDArray w = s.weight;
    w -= nd::sign(s.grad) * (s.lr * scale_);
  }

 private:
  double scale_ = 1;
};

TEST(OptimizerFactory, UserOptimizersCanBeRegistered) {
  optim::register_optimizer("SignSGD", [] { return std::make_unique<SignSGD>(); });
  auto opt = create("signsgd", {{"scale", "2"}, {"learning_rate", "0.25"}});
  NDArray w = nd::array({1.0f, 1.0f}), g = nd::array({3.0f, -0.5f});
  opt->update(0, w, g);
  EXPECT_EQ(w.to_vector<double>(), (std::vector<double>{0.5, 1.5}));
  auto copy = optim::Optimizer::deserialize(opt->serialize());
  EXPECT_EQ(copy->name(), "signsgd");
  EXPECT_EQ(copy->param("scale"), "2");
  // Multi-precision without a fused op: the step runs on the float32 master copy.
  auto mp = create("signsgd", {{"multi_precision", "True"}, {"learning_rate", "0.0001"}});
  NDArray h = nd::ones(Shape({2})).astype(DType::Float16);
  for (int i = 0; i < 10; ++i) mp->update(0, h, g.astype(DType::Float16));
  EXPECT_NEAR(mp->master_weight(0).to_vector<double>()[0], 1 - 10 * 0.0001, 1e-6);
  EXPECT_EQ(h.to_vector<double>()[0], 0.99902343750);  // the float16 nearest to 0.999
}

TEST(OptimizerStates, CreatedOnFirstUpdateLikeTheWeight) {
  auto opt = create("adam");
  NDArray w = nd::ones(Shape({2, 3}), cpu(), DType::Float64);
  EXPECT_FALSE(opt->has_state(7));
  expect_error([&] { opt->state(7); }, {"index 7 has no state"});
  opt->update(7, w, nd::ones(Shape({2, 3}), cpu(), DType::Float64));
  ASSERT_TRUE(opt->has_state(7));
  ASSERT_EQ(opt->state(7).size(), 2u);
  EXPECT_EQ(opt->state(7)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(opt->state(7)[1].dtype(), DType::Float64);
  EXPECT_TRUE(opt->master_weight(7).is_none());
  EXPECT_EQ(create("sgd")->state_names().size(), 0u);  // plain SGD keeps no state

  auto mp = create("sgd", {{"momentum", "0.9"}, {"multi_precision", "True"}});
  NDArray h = nd::ones(Shape({4})).astype(DType::Float16);
  mp->update(0, h, nd::ones(Shape({4})).astype(DType::Float16));
  EXPECT_EQ(mp->state(0)[0].dtype(), DType::Float32);
  EXPECT_EQ(mp->master_weight(0).dtype(), DType::Float32);
}

TEST(OptimizerStates, UpdateErrorsNameTheIndexAndTheFix) {
  auto opt = create("sgd", {{"momentum", "0.9"}});
  NDArray h = nd::ones(Shape({4})).astype(DType::Float16);
  opt->update(3, h, h);  // as MXNet: float16 without a master copy is allowed (with a warning)
  EXPECT_EQ(opt->state(3)[0].dtype(), DType::Float16);
  EXPECT_TRUE(opt->master_weight(3).is_none());
  expect_error([&] { opt->update(1, nd::ones(Shape({4})), nd::ones(Shape({5}))); }, {"weight 1 has shape", "gradient"});
  opt->update(2, nd::ones(Shape({4})), nd::ones(Shape({4})));
  expect_error([&] { opt->update(2, nd::ones(Shape({3})), nd::ones(Shape({3}))); },
               {"state of index 2", "one index per parameter"});
}

TEST(OptimizerCounts, FollowMXNetsUpdateCount) {
  auto opt = create("sgd", {{"begin_num_update", "5"}});
  EXPECT_EQ(opt->num_update(), 5);
  EXPECT_EQ(opt->update_count(0), 0);
  auto w = [] { return nd::ones(Shape({2})); };
  opt->update(0, w(), w());
  EXPECT_EQ(opt->update_count(0), 6);
  opt->update(1, w(), w());
  opt->update(0, w(), w());
  EXPECT_EQ(opt->update_count(0), 7);
  EXPECT_EQ(opt->update_count(1), 6);
  EXPECT_EQ(opt->num_update(), 7);
}

TEST(OptimizerMultipliers, WdMultDefaultsToZeroForNamesNotEndingInWeightOrGamma) {
  auto opt = create("sgd", {{"wd", "0.1"}});
  opt->set_idx2name({{0, "fc1_weight"},
                     {1, "fc1_bias"},
                     {2, "bn_gamma"},
                     {3, "bn_beta"},
                     {4, "bn_moving_mean"},
                     {5, "embedding0_weight"}});
  std::vector<double> want{0.1, 0, 0.1, 0, 0, 0.1};
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(opt->get_wd(i), want[static_cast<size_t>(i)]) << i;
  EXPECT_DOUBLE_EQ(opt->get_wd(9), 0.1);  // an index without a name decays
  opt->set_wd_mult({{"fc1_bias", 0.5}, {"fc1_weight", 3.0}}, {{0, 2.0}});
  EXPECT_DOUBLE_EQ(opt->get_wd(0), 0.2);  // the index entry wins over the name
  EXPECT_DOUBLE_EQ(opt->get_wd(1), 0.05);
  EXPECT_DOUBLE_EQ(opt->get_wd(3), 0.0);  // defaults stay for the other names
}

TEST(OptimizerMultipliers, LrMultByNameAndByIndex) {
  auto opt = create("sgd", {{"learning_rate", "0.1"}});
  opt->set_idx2name({{0, "fc1_weight"}, {1, "fc1_bias"}, {2, "fc2_weight"}});
  opt->set_lr_mult({{"fc1_weight", 0.5}, {"fc2_weight", 4.0}}, {{1, 3.0}, {2, 2.0}});
  EXPECT_DOUBLE_EQ(opt->get_lr(0), 0.05);
  EXPECT_DOUBLE_EQ(opt->get_lr(1), 0.3);
  EXPECT_DOUBLE_EQ(opt->get_lr(2), 0.2);
  EXPECT_DOUBLE_EQ(opt->get_lr(5), 0.1);
  // The multiplier reaches the update: lr 0.05 on index 0.
  NDArray w = nd::ones(Shape({1}));
  opt->update(0, w, nd::ones(Shape({1})));
  EXPECT_NEAR(w.to_vector<double>()[0], 0.95, 1e-7);
}

TEST(OptimizerSchedule, TheSchedulerGivesTheRateAtNumUpdate) {
  auto opt = create("sgd");
  opt->set_lr_scheduler(std::make_shared<optim::FactorScheduler>(1, 0.5, 1e-8, 0.4));
  EXPECT_DOUBLE_EQ(opt->learning_rate(), 0.4);
  expect_error([&] { opt->set_learning_rate(0.1); }, {"set_learning_rate", "scheduler", "base_lr"});
  NDArray w = nd::zeros(Shape({1}));
  opt->update(0, w, nd::ones(Shape({1})));  // num_update 1: 0.4
  opt->update(0, w, nd::ones(Shape({1})));  // num_update 2: 0.2
  EXPECT_NEAR(w.to_vector<double>()[0], -0.6, 1e-7);
  EXPECT_DOUBLE_EQ(opt->learning_rate(), 0.2);
  // An explicit learning_rate overwrites the scheduler's base_lr (MXNet 1.x).
  auto given = create("sgd", {{"learning_rate", "0.05"}});
  auto sched = std::make_shared<optim::FactorScheduler>(10, 0.5, 1e-8, 0.4);
  given->set_lr_scheduler(sched);
  EXPECT_DOUBLE_EQ(sched->base_lr(), 0.05);
  auto plain = create("sgd");
  plain->set_learning_rate(0.3);
  EXPECT_DOUBLE_EQ(plain->learning_rate(), 0.3);
}

}  // namespace
}  // namespace braid::test
