// serialize/deserialize and save_states/load_states: what a parameter server and Trainer need to
// ship an optimizer and to resume training where it stopped.
#include <gtest/gtest.h>

#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/optim/optimizers.h"
#include "expect_error.h"
#include "optim_runner.h"

namespace braid::test {
namespace {

using optim::Optimizer;

std::unique_ptr<Optimizer> configured() {
  auto opt = optim::create("Adam", {{"learning_rate", "0.02"},
                                    {"wd", "0.01"},
                                    {"clip_gradient", "0.5"},
                                    {"beta1", "0.85"},
                                    {"rescale_grad", "0.25"}});
  opt->set_idx2name({{0, "fc_weight"}, {1, "fc_bias"}});
  opt->set_lr_mult({{"fc_bias", 2.0}}, {{0, 0.5}});
  opt->set_wd_mult({{"fc_bias", 0.25}});
  opt->set_lr_scheduler(std::make_shared<optim::CosineScheduler>(20, 0.02, 0.001, optim::Warmup{2, 0.0, "linear"}));
  return opt;
}

TEST(OptimizerSerialize, RoundTripKeepsEverything) {
  auto opt = configured();
  auto copy = Optimizer::deserialize(opt->serialize());
  EXPECT_EQ(copy->serialize(), opt->serialize());
  EXPECT_EQ(copy->name(), "adam");
  EXPECT_EQ(copy->params(), opt->params());
  EXPECT_EQ(copy->idx2name(), opt->idx2name());
  ASSERT_NE(copy->lr_scheduler(), nullptr);
  EXPECT_EQ(copy->lr_scheduler()->type(), "cosine");
  for (int i : {0, 1, 2}) {
    EXPECT_DOUBLE_EQ(copy->get_lr(i), opt->get_lr(i)) << i;
    EXPECT_DOUBLE_EQ(copy->get_wd(i), opt->get_wd(i)) << i;
  }
}

TEST(OptimizerSerialize, RejectsOtherText) {
  expect_error([] { Optimizer::deserialize("not json"); }, {"serialized optimizer", "serialize()"});
  expect_error([] { Optimizer::deserialize("{\"format\": \"other\"}"); }, {"not a serialized optimizer"});
}

// Runs `steps` updates of the fixed gradients on both parameters.
void run(Optimizer& opt, std::vector<NDArray>& w, int from, int steps, DType dtype) {
  auto grads = gradients(from + steps);
  for (int s = from; s < from + steps; ++s)
    for (size_t p = 0; p < w.size(); ++p)
      opt.update(static_cast<int>(p), w[p], nd::array(grads[static_cast<size_t>(s)][p], w[p].shape(), cpu(), dtype));
}

std::vector<NDArray> weights(DType dtype) {
  auto init = initial_weights();
  return {nd::array(init[0], Shape({3, 4}), cpu(), dtype), nd::array(init[1], Shape({4}), cpu(), dtype)};
}

void expect_resumes_identically(std::unique_ptr<Optimizer> a, DType dtype) {
  std::vector<NDArray> wa = weights(dtype);
  run(*a, wa, 0, 3, dtype);
  std::string described = a->serialize(), states = a->save_states();
  auto b = Optimizer::deserialize(described);
  b->load_states(states);
  EXPECT_EQ(b->update_count(0), a->update_count(0));
  EXPECT_EQ(b->num_update(), a->num_update());
  std::vector<NDArray> wb;
  for (const auto& w : wa) wb.push_back(w.copy());
  run(*a, wa, 3, 3, dtype);
  run(*b, wb, 3, 3, dtype);
  for (size_t p = 0; p < wa.size(); ++p) EXPECT_EQ(wa[p].to_vector<double>(), wb[p].to_vector<double>()) << p;
  EXPECT_EQ(b->save_states(), a->save_states());
}

TEST(OptimizerStates, SaveAndLoadContinueIdentically) {
  expect_resumes_identically(configured(), DType::Float64);
  expect_resumes_identically(optim::create("rmsprop", {{"centered", "True"}, {"begin_num_update", "4"}}),
                             DType::Float32);
  expect_resumes_identically(optim::create("sgd", {{"momentum", "0.9"}, {"multi_precision", "True"}}), DType::Float16);
}

TEST(OptimizerStates, SavedUnderIndexAndStateNames) {
  auto opt = optim::create("sgd", {{"momentum", "0.9"}, {"multi_precision", "True"}});
  std::vector<NDArray> w = weights(DType::Float16);
  run(*opt, w, 0, 1, DType::Float16);
  io::NamedArrays saved = io::load_from_bytes(opt->save_states());
  EXPECT_EQ(saved.names, (std::vector<std::string>{"0_mom", "0_weight32", "1_mom", "1_weight32", "__update_counts__",
                                                   "__num_update__"}));
  EXPECT_EQ(saved.arrays[4].to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 1}));
}

TEST(OptimizerStates, LoadRejectsStatesOfAnotherOptimizer) {
  auto adam = optim::create("adam");
  std::vector<NDArray> w = weights(DType::Float32);
  run(*adam, w, 0, 1, DType::Float32);
  auto sgd = optim::create("sgd", {{"momentum", "0.9"}});
  expect_error([&] { sgd->load_states(adam->save_states()); }, {"optimizer sgd", "index 0", "lack 'mom'"});
  auto plain = optim::create("sgd");
  expect_error([&] { plain->load_states(adam->save_states()); }, {"0_mean", "not one of this optimizer's states"});
  expect_error([&] { plain->load_states("garbage"); }, {"optimizer states"});
}

}  // namespace
}  // namespace braid::test
