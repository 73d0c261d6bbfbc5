// BatchNorm and LayerNorm: hand-computed values, a naive reference over every axis, the
// imperative path (visible outputs, moving statistics updated in place) and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/invoke.h"
#include "unit/op/nn/nn_test_util.h"

namespace braid::test::nn_ops {
namespace {

// data (4, 1) = {0, 0, 2, 2}: batch mean 1, biased variance 1; gamma 2, beta 0.5.
OpCall bn_call(op::AttrMap attrs, bool train) {
  OpCall c{"BatchNorm",
           std::move(attrs),
           {Shape({4, 1}), Shape({1}), Shape({1}), Shape({1}), Shape({1})},
           {{0, 0, 2, 2}, {2}, {0.5}, {0}, {1}}};
  c.is_train = train;
  c.out_grads = {{1, 0, 0, 0}, {}, {}};
  return c;
}

TEST(NnBasicBatchNorm, TrainingUsesBatchStatisticsAndUpdatesMovingOnes) {
  OpResult r = run_op(bn_call({{"eps", "0"}, {"fix_gamma", "False"}}, true));
  EXPECT_TRUE(all_close(r.outputs[0], {-1.5, -1.5, 2.5, 2.5}));
  EXPECT_TRUE(all_close(r.outputs[1], {1}));  // mean
  EXPECT_TRUE(all_close(r.outputs[2], {1}));  // inverse std
  EXPECT_TRUE(all_close(r.aux[0], {0.1}));    // 0.9 * 0 + 0.1 * 1
  EXPECT_TRUE(all_close(r.aux[1], {1}));      // 0.9 * 1 + 0.1 * 1
  // dx = gamma * invstd * (g - mean(g) - xhat * mean(g * xhat)), xhat = {-1, -1, 1, 1}.
  EXPECT_TRUE(all_close(r.grads[0], {1, -1, 0, 0}));
  EXPECT_TRUE(all_close(r.grads[1], {-1}));  // sum g * xhat
  EXPECT_TRUE(all_close(r.grads[2], {1}));   // sum g
}

// relu(BatchNorm): the outputs above 0 kept, the gradient passing only where the output is
// positive: g = {1, 0, 0, 0} reaches nothing (the first output is -1.5).
TEST(NnBasicBatchNorm, TheReluFusedFormClipsTheOutputAndItsGradient) {
  OpCall c = bn_call({{"eps", "0"}, {"fix_gamma", "False"}}, true);
  c.op = "_contrib_BatchNormWithReLU";
  OpResult r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {0, 0, 2.5, 2.5}));
  EXPECT_TRUE(all_close(r.aux[0], {0.1}));
  EXPECT_TRUE(all_close(r.grads[0], {0, 0, 0, 0}));
  EXPECT_TRUE(all_close(r.grads[2], {0}));
  c.out_grads = {{0, 0, 1, 0}, {}, {}};  // through the third output: BatchNorm's own gradient
  c.op = "BatchNorm";
  const OpResult plain = run_op(c);
  c.op = "_contrib_BatchNormWithReLU";
  const OpResult fused = run_op(c);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(all_close(fused.grads[i], plain.grads[i])) << i;
}

TEST(NnBasicBatchNorm, FixGammaTreatsGammaAsOneWithZeroGradient) {
  OpResult r = run_op(bn_call({{"eps", "0"}}, true));
  EXPECT_TRUE(all_close(r.outputs[0], {-0.5, -0.5, 1.5, 1.5}));
  EXPECT_TRUE(all_close(r.grads[0], {0.5, -0.5, 0, 0}));
  EXPECT_TRUE(all_close(r.grads[1], {0}));
}

TEST(NnBasicBatchNorm, InferenceAndGlobalStatsUseMovingStatistics) {
  for (bool global : {false, true}) {
    OpCall c = bn_call({{"eps", "1"}, {"fix_gamma", "False"}, {"use_global_stats", global ? "True" : "False"}}, global);
    c.values[3] = {1};  // moving mean
    c.values[4] = {3};  // moving var: invstd = 1 / sqrt(3 + 1)
    OpResult r = run_op(c);
    EXPECT_TRUE(all_close(r.outputs[0], {-0.5, -0.5, 1.5, 1.5})) << global;
    EXPECT_TRUE(all_close(r.outputs[1], {1}));
    EXPECT_TRUE(all_close(r.outputs[2], {0.5}));
    EXPECT_TRUE(all_close(r.aux[0], {1}));  // untouched
    EXPECT_TRUE(all_close(r.aux[1], {3}));
    EXPECT_TRUE(all_close(r.grads[0], {1, 0, 0, 0}));  // g * gamma * invstd
    EXPECT_TRUE(all_close(r.grads[1], {-0.5}));        // sum g * xhat, xhat = (0 - 1) * 0.5
  }
}

// Straightforward per-channel batch normalization of a (d0, d1, d2) array along `axis`.
Values naive_bn(const Values& x, const Shape& s, int axis, const Values& gamma, const Values& beta, double eps) {
  Values y(x.size());
  for (int64_t c = 0; c < s[axis]; ++c) {
    std::vector<size_t> idx;
    for (int64_t i = 0; i < s[0]; ++i)
      for (int64_t j = 0; j < s[1]; ++j)
        for (int64_t k = 0; k < s[2]; ++k)
          if ((axis == 0 ? i : axis == 1 ? j : k) == c) idx.push_back(static_cast<size_t>((i * s[1] + j) * s[2] + k));
    double mean = 0, var = 0;
    for (size_t i : idx) mean += x[i] / static_cast<double>(idx.size());
    for (size_t i : idx) var += (x[i] - mean) * (x[i] - mean) / static_cast<double>(idx.size());
    for (size_t i : idx)
      y[i] = (x[i] - mean) / std::sqrt(var + eps) * gamma[static_cast<size_t>(c)] + beta[static_cast<size_t>(c)];
  }
  return y;
}

TEST(NnBasicBatchNorm, MatchesNaiveReferenceOnEveryAxis) {
  const Shape s({3, 4, 5});
  const Values x = random_values(60, -2, 2, 11);
  for (int axis : {0, 1, 2, -1}) {
    const int a = axis < 0 ? axis + 3 : axis;
    const int64_t ch = s[a];
    const Values gamma = random_values(static_cast<size_t>(ch), 0.5, 1.5, 12),
                 beta = random_values(static_cast<size_t>(ch), -1, 1, 13);
    OpCall c{"BatchNorm",
             {{"axis", std::to_string(axis)}, {"fix_gamma", "False"}},
             {s, Shape({ch}), Shape({ch}), Shape({ch}), Shape({ch})},
             {x, gamma, beta, Values(static_cast<size_t>(ch), 0.0), Values(static_cast<size_t>(ch), 1.0)}};
    c.is_train = true;
    EXPECT_TRUE(all_close(run_op(c).outputs[0], naive_bn(x, s, a, gamma, beta, 1e-3), 1e-10, 1e-12)) << axis;
  }
}

TEST(NnBasicBatchNorm, ImperativeCallShowsOutputsAndUpdatesAuxInTraining) {
  NDArray x = make_array(Shape({4, 1}), {0, 0, 2, 2}), gamma = make_array(Shape({1}), {2}),
          beta = make_array(Shape({1}), {0.5}), mm = make_array(Shape({1}), {0}), mv = make_array(Shape({1}), {1});
  bool prev = autograd::set_training(true);
  auto outs = nd::invoke("BatchNorm", {x, gamma, beta, mm, mv}, {{"eps", "0"}});
  auto all = nd::invoke("BatchNorm", {x, gamma, beta, mm, mv}, {{"eps", "0"}, {"output_mean_var", "True"}});
  autograd::set_training(false);
  auto infer = nd::invoke("BatchNorm", {x, gamma, beta, mm, mv}, {{"eps", "0"}});
  autograd::set_training(prev);
  ASSERT_EQ(outs.size(), 1u);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_TRUE(all_close(values_of(outs[0]), {-0.5, -0.5, 1.5, 1.5}));
  EXPECT_TRUE(all_close(values_of(all[1]), {1}));
  EXPECT_TRUE(all_close(values_of(all[2]), {1}));
  // Two training calls: 0.1, then 0.9 * 0.1 + 0.1 = 0.19; the inference call reads, not writes.
  EXPECT_TRUE(all_close(values_of(mm), {0.19}, 1e-6, 1e-7));
  // Inference: (x - 0.19) / sqrt(1 + 0) + 0.5, gamma fixed to 1.
  EXPECT_TRUE(all_close(values_of(infer[0]), {0.31, 0.31, 2.31, 2.31}, 1e-6, 1e-6));
}

TEST(NnBasicBatchNorm, BadShapesAndAttributesThrow) {
  NDArray x = make_array(Shape({2, 3, 4}), Values(24, 1.0)), c3 = make_array(Shape({3}), {1, 1, 1}),
          c4 = make_array(Shape({4}), {1, 1, 1, 1});
  EXPECT_THROW(nd::invoke("BatchNorm", {x, c4, c3, c3, c3}), Error);  // gamma of the wrong length
  EXPECT_THROW(nd::invoke("BatchNorm", {x, c3, c3, c3, c4}), Error);  // moving_var of the wrong length
  EXPECT_THROW(nd::invoke("BatchNorm", {x, c3, c3, c3, c3}, {{"axis", "3"}}), Error);
  EXPECT_THROW(nd::invoke("BatchNorm", {x, c3, c3, c3, c3}, {{"eps", "-1"}}), Error);
  EXPECT_THROW(nd::invoke("BatchNorm", {x, c3, c3, c3, c3}, {{"momentun", "0.9"}}), Error);
  EXPECT_THROW(nd::invoke("BatchNorm", {x, c3, c3}), Error);  // aux states missing
  EXPECT_NO_THROW(nd::invoke("BatchNorm", {x, c4, c4, c4, c4}, {{"axis", "-1"}, {"cudnn_off", "True"}}));
  nd::waitall();
}

TEST(NnBasicLayerNorm, HandValues) {
  // One row {0, 0, 2, 2}: mean 1, variance 1; gamma {1, 2, 3, 4}, beta 0, eps 0.
  OpCall c{
      "LayerNorm", {{"eps", "0"}}, {Shape({1, 4}), Shape({4}), Shape({4})}, {{0, 0, 2, 2}, {1, 2, 3, 4}, {0, 0, 0, 0}}};
  c.out_grads = {{1, 0, 0, 0}, {}, {}};
  OpResult r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {-1, -2, 3, 4}));
  EXPECT_EQ(r.out_shapes[1], Shape({1, 1}));
  EXPECT_TRUE(all_close(r.outputs[1], {1}));  // mean
  EXPECT_TRUE(all_close(r.outputs[2], {1}));  // std
  EXPECT_TRUE(all_close(r.grads[0], {0.5, -0.5, 0, 0}));
  EXPECT_TRUE(all_close(r.grads[1], {-1, 0, 0, 0}));
  EXPECT_TRUE(all_close(r.grads[2], {1, 0, 0, 0}));
}

TEST(NnBasicLayerNorm, MatchesNaiveReferenceOnEveryAxis) {
  const Shape s({3, 4, 5});
  const Values x = random_values(60, -2, 2, 21);
  for (int axis : {0, 1, 2}) {
    const int64_t d = s[axis];
    const Values gamma = random_values(static_cast<size_t>(d), 0.5, 1.5, 22),
                 beta = random_values(static_cast<size_t>(d), -1, 1, 23);
    OpCall c{"LayerNorm",
             {{"axis", std::to_string(axis)}, {"output_mean_var", "True"}},
             {s, Shape({d}), Shape({d})},
             {x, gamma, beta}};
    OpResult r = run_op(c);
    Shape stat = s;
    stat[axis] = 1;
    EXPECT_EQ(r.out_shapes[1], stat);
    // Normalizing every index of `axis` for fixed other indices is BatchNorm's per-channel
    // normalization with the roles swapped: check each group directly.
    Values expect(x.size()), mean, stdev;
    for (int64_t i = 0; i < s[0]; ++i)
      for (int64_t j = 0; j < s[1]; ++j)
        for (int64_t k = 0; k < s[2]; ++k) {
          if ((axis == 0 ? i : axis == 1 ? j : k) != 0) continue;
          auto at = [&](int64_t t) {
            return static_cast<size_t>(((axis == 0 ? t : i) * s[1] + (axis == 1 ? t : j)) * s[2] + (axis == 2 ? t : k));
          };
          double m = 0, v = 0;
          for (int64_t t = 0; t < d; ++t) m += x[at(t)] / static_cast<double>(d);
          for (int64_t t = 0; t < d; ++t) v += (x[at(t)] - m) * (x[at(t)] - m) / static_cast<double>(d);
          mean.push_back(m);
          stdev.push_back(std::sqrt(v + 1e-5));
          for (int64_t t = 0; t < d; ++t)
            expect[at(t)] =
                (x[at(t)] - m) / stdev.back() * gamma[static_cast<size_t>(t)] + beta[static_cast<size_t>(t)];
        }
    EXPECT_TRUE(all_close(r.outputs[0], expect, 1e-10, 1e-12)) << axis;
    EXPECT_TRUE(all_close(r.outputs[1], mean, 1e-10, 1e-12)) << axis;
    EXPECT_TRUE(all_close(r.outputs[2], stdev, 1e-10, 1e-12)) << axis;
  }
}

TEST(NnBasicLayerNorm, BadShapesThrowAndOutputsAreHiddenByDefault) {
  NDArray x = make_array(Shape({2, 3}), {1, 2, 3, 4, 5, 7}), g3 = make_array(Shape({3}), {1, 1, 1}),
          b3 = make_array(Shape({3}), {0, 0, 0}), g2 = make_array(Shape({2}), {1, 1});
  EXPECT_EQ(nd::invoke("LayerNorm", {x, g3, b3}).size(), 1u);
  EXPECT_EQ(nd::invoke("LayerNorm", {x, g3, b3}, {{"output_mean_var", "True"}}).size(), 3u);
  EXPECT_THROW(nd::invoke("LayerNorm", {x, g2, b3}), Error);
  EXPECT_THROW(nd::invoke("LayerNorm", {x, g3, b3}, {{"axis", "2"}}), Error);
  EXPECT_NO_THROW(nd::invoke("LayerNorm", {x, g2, g2}, {{"axis", "0"}}));
  nd::waitall();
}

}  // namespace
}  // namespace braid::test::nn_ops
