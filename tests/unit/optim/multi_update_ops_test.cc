// MXNet's multi-weight updates (multi_sgd_update, multi_sgd_mom_update, multi_mp_*): MXNet's
// argument names, each weight updated exactly as its single update does with its own lr and wd,
// errors; and Optimizer::update over many indices, which groups weights into them.
#include <gtest/gtest.h>

#include <cstdlib>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/op/param_reader.h"
#include "braid/op/registry.h"
#include "braid/optim/optimizer.h"
#include "expect_error.h"

namespace braid::test {
namespace {

const std::vector<Shape> kShapes{Shape({3, 4}), Shape({5}), Shape({2, 2, 3})};

// Exact equality: both paths run the same rule on the same numbers.
void expect_same(const NDArray& got, const NDArray& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  EXPECT_EQ(got.to_vector<double>(), want.to_vector<double>()) << what;
}

TEST(MultiUpdateOps, ArgumentsOutputsAndMutatedInputsAreMXNets) {
  const op::OpDef& d = op::Registry::get().find("multi_mp_sgd_mom_update");
  const std::any p = d.parse({{"lrs", "(0.1, 0.2)"}, {"wds", "(0, 0)"}, {"num_weights", "2"}, {"momentum", "0.9"}});
  EXPECT_EQ(d.list_arguments(p), (std::vector<std::string>{"weight_0", "grad_0", "mom_0", "weight32_0", "weight_1",
                                                           "grad_1", "mom_1", "weight32_1"}));
  EXPECT_EQ(d.num_outputs(p), 2);
  EXPECT_EQ(d.mutate_inputs(p), (std::vector<int>{2, 3, 6, 7}));
  const op::OpDef& plain = op::Registry::get().find("multi_sgd_update");
  EXPECT_EQ(plain.list_arguments(plain.parse({{"lrs", "(0.1,)"}, {"wds", "(0,)"}})),
            (std::vector<std::string>{"weight_0", "grad_0"}));
  EXPECT_FALSE(d.differentiable());
}

// Each weight of one multi_sgd_mom_update call against sgd_mom_update on a copy of it.
TEST(MultiUpdateOps, EachWeightIsUpdatedAsItsSingleUpdateWithItsOwnRates) {
  nd::seed(5);
  const std::vector<double> lrs{0.1, 0.05, 0.2}, wds{0.01, 0.0, 0.1};
  std::vector<NDArray> inputs, outputs, single_w, single_mom;
  for (size_t i = 0; i < kShapes.size(); ++i) {
    NDArray w = nd::random_uniform(-1, 1, kShapes[i]), g = nd::random_uniform(-3, 3, kShapes[i]),
            mom = nd::random_uniform(-0.1, 0.1, kShapes[i]);
    single_w.push_back(w.copy());
    single_mom.push_back(mom.copy());
    NDArray sw = single_w.back();
    nd::invoke("sgd_mom_update", {sw, g, single_mom.back()},
               {{"lr", op::format_number(lrs[i])},
                {"wd", op::format_number(wds[i])},
                {"momentum", "0.9"},
                {"rescale_grad", "0.5"},
                {"clip_gradient", "1"}},
               {sw});
    inputs.insert(inputs.end(), {w, g, mom});
    outputs.push_back(w);
  }
  nd::invoke("multi_sgd_mom_update", inputs,
             {{"lrs", "(0.1, 0.05, 0.2)"},
              {"wds", "(0.01, 0, 0.1)"},
              {"momentum", "0.9"},
              {"rescale_grad", "0.5"},
              {"clip_gradient", "1"},
              {"num_weights", "3"}},
             outputs);
  for (size_t i = 0; i < kShapes.size(); ++i) {
    expect_same(outputs[i], single_w[i], cat("weight ", i));
    expect_same(inputs[3 * i + 2], single_mom[i], cat("momentum ", i));
  }
}

TEST(MultiUpdateOps, MultiPrecisionUpdatesFloat16WeightsThroughTheirMasterCopies) {
  nd::seed(6);
  std::vector<NDArray> inputs, outputs, single;
  for (size_t i = 0; i < 2; ++i) {
    NDArray w32 = nd::random_uniform(-1, 1, kShapes[i]);
    NDArray w = w32.astype(DType::Float16), g = nd::random_uniform(-1, 1, kShapes[i]).astype(DType::Float16);
    NDArray sw = w.copy(), sw32 = w32.copy();
    nd::invoke("mp_sgd_update", {sw, g, sw32}, {{"lr", i ? "0.3" : "0.1"}, {"wd", "0"}}, {sw});
    single.insert(single.end(), {sw, sw32});
    inputs.insert(inputs.end(), {w, g, w32});
    outputs.push_back(w);
  }
  nd::invoke("multi_mp_sgd_update", inputs, {{"lrs", "(0.1, 0.3)"}, {"wds", "(0, 0)"}, {"num_weights", "2"}}, outputs);
  for (size_t i = 0; i < 2; ++i) {
    expect_same(outputs[i], single[2 * i], cat("float16 weight ", i));
    expect_same(inputs[3 * i + 2], single[2 * i + 1], cat("master copy ", i));
  }
}

TEST(MultiUpdateOps, RatesThatDoNotMatchTheWeightsAreRefused) {
  NDArray w = nd::zeros(Shape({2})), g = nd::ones(Shape({2}));
  expect_error(
      [&] {
        nd::invoke("multi_sgd_update", {w, g}, {{"lrs", "(0.1, 0.2)"}, {"wds", "(0,)"}}, {w});
      },
      {"multi_sgd_update", "num_weights is 1", "lrs has 2"});
  expect_error([&] { nd::invoke("multi_sgd_update", {w, g}, {{"wds", "(0,)"}}, {w}); }, {"multi_sgd_update", "lrs"});
  expect_error(
      [&] {
        nd::invoke("multi_sgd_update", {w, g, w}, {{"lrs", "(0.1,)"}, {"wds", "(0,)"}, {"num_weights", "1"}}, {w});
      },
      {"multi_sgd_update"});
  NDArray w3 = nd::zeros(Shape({3}));
  expect_error(
      [&] {
        nd::invoke("multi_sgd_update", {w, g, w3, g}, {{"lrs", "(0.1, 0.1)"}, {"wds", "(0, 0)"}, {"num_weights", "2"}},
                   {w, w3});
      },
      {"weight 1"});
}

// Sets MXNET_OPTIMIZER_AGGREGATION_SIZE for one test.
class AggregationSize {
 public:
  explicit AggregationSize(const char* value) { setenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", value, 1); }
  ~AggregationSize() { unsetenv("MXNET_OPTIMIZER_AGGREGATION_SIZE"); }
};

// Five weights (one float64, one float16) through Optimizer::update over all indices, two per
// operation, against one update() per index on another optimizer: same weights and states.
TEST(MultiUpdateOps, OptimizerUpdateOverManyIndicesEqualsOneUpdateEach) {
  AggregationSize two("2");
  EXPECT_EQ(optim::Optimizer::aggregation_size(), 2);
  const std::map<std::string, std::string> params{
      {"learning_rate", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}, {"multi_precision", "True"}};
  auto together = optim::create("sgd", params), one_by_one = optim::create("sgd", params);
  for (auto* o : {together.get(), one_by_one.get()}) o->set_lr_mult({}, {{3, 0.5}});
  nd::seed(7);
  std::vector<int> indices{0, 1, 2, 3, 4};
  const std::vector<DType> dtypes{DType::Float32, DType::Float32, DType::Float64, DType::Float32, DType::Float16};
  std::vector<NDArray> weights, grads, reference;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Shape shape = kShapes[i % kShapes.size()];
    weights.push_back(nd::random_uniform(-1, 1, shape).astype(dtypes[i]));
    grads.push_back(nd::random_uniform(-1, 1, shape).astype(dtypes[i]));
    reference.push_back(weights.back().copy());
  }
  for (int step = 0; step < 3; ++step) {
    together->update(indices, weights, grads);
    for (size_t i = 0; i < indices.size(); ++i) one_by_one->update(indices[i], reference[i], grads[i]);
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    expect_same(weights[i], reference[i], cat("weight ", i));
    expect_same(together->state(indices[i])[0], one_by_one->state(indices[i])[0], cat("momentum ", i));
    EXPECT_EQ(together->update_count(indices[i]), 3);
  }
  expect_error([&] { together->update({0, 1}, {weights[0]}, {grads[0]}); }, {"2 indices, 1 weights"});
}

}  // namespace
}  // namespace braid::test
