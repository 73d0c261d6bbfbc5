// BatchNorm and LayerNorm: parameter names, shapes and grad_req, deferred in_channels, running
// statistics updated in training and used in predict mode, the operators called directly, repr.
#include <gtest/gtest.h>

#include <cmath>

#include "../gluon_test_util.h"
#include "braid/autograd/autograd.h"
#include "braid/gluon/nn/batch_norm.h"
#include "braid/gluon/nn/layer_norm.h"
#include "braid/ndarray/invoke.h"

namespace braid::gluon {
namespace {

using namespace test_util;

// Per-channel (axis 1) mean and biased variance of NCHW data.
void channel_stats(const NDArray& x, Values& mean, Values& var) {
  const Values v = values(x);
  const int64_t n = x.shape()[0], c = x.shape()[1], inner = x.size() / (n * c);
  mean.assign(static_cast<size_t>(c), 0);
  var.assign(static_cast<size_t>(c), 0);
  for (int64_t k = 0; k < c; ++k) {
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < inner; ++j) {
        const double e = v[static_cast<size_t>((i * c + k) * inner + j)];
        s += e;
        s2 += e * e;
      }
    const double cnt = static_cast<double>(n * inner);
    mean[static_cast<size_t>(k)] = s / cnt;
    var[static_cast<size_t>(k)] = s2 / cnt - (s / cnt) * (s / cnt);
  }
}

TEST(BatchNormLayer, ParametersFollowMxnet) {
  nn::BatchNorm bn;
  EXPECT_EQ(bn.prefix().rfind("batchnorm", 0), 0u) << bn.prefix();
  EXPECT_EQ(bn.collect_params().keys(),
            (std::vector<std::string>{bn.prefix() + "gamma", bn.prefix() + "beta", bn.prefix() + "running_mean",
                                      bn.prefix() + "running_var"}));
  EXPECT_EQ(bn.gamma()->grad_req(), GradReq::Write);
  EXPECT_EQ(bn.beta()->grad_req(), GradReq::Write);
  EXPECT_EQ(bn.running_mean()->grad_req(), GradReq::Null);
  EXPECT_EQ(bn.running_var()->grad_req(), GradReq::Null);
  EXPECT_EQ(bn.repr(),
            "BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, use_global_stats=False, "
            "in_channels=None)");
  nn::BatchNorm fixed({.momentum = 0.8, .epsilon = 1e-3, .center = false, .scale = false, .in_channels = 3});
  EXPECT_EQ(fixed.gamma()->grad_req(), GradReq::Null);
  EXPECT_EQ(fixed.beta()->grad_req(), GradReq::Null);
  EXPECT_EQ(fixed.gamma()->shape(), Shape({3}));
  EXPECT_EQ(fixed.repr(),
            "BatchNorm(axis=1, eps=0.001, momentum=0.8, fix_gamma=True, use_global_stats=False, "
            "in_channels=3)");
}

TEST(BatchNormLayer, TrainingUpdatesRunningStatsAndPredictUsesThem) {
  nn::BatchNorm bn;
  bn.initialize();
  const NDArray x = random_array(Shape({4, 3, 5, 2}), 21, DType::Float32, -2, 3);
  NDArray y;
  {
    autograd::RecordScope rec;  // training mode
    y = bn(x);
  }
  ASSERT_EQ(bn.gamma()->shape(), Shape({3}));  // in_channels inferred from axis 1
  Values mean, var;
  channel_stats(x, mean, var);
  Values want_mean, want_var;
  for (size_t c = 0; c < 3; ++c) {
    want_mean.push_back(0.9 * 0 + 0.1 * mean[c]);
    want_var.push_back(0.9 * 1 + 0.1 * var[c]);
  }
  expect_values(bn.running_mean()->data(), want_mean, 1e-5, "running_mean");
  expect_values(bn.running_var()->data(), want_var, 1e-5, "running_var");
  // Training output: normalized with the batch statistics (gamma 1, beta 0).
  const Values xv = values(x), yv = values(y);
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t c = (i / 10) % 3;
    ASSERT_NEAR(yv[i], (xv[i] - mean[c]) / std::sqrt(var[c] + 1e-5), 1e-4) << i;
  }
  // Predict mode: the running statistics normalize, and stay as they are.
  const NDArray z = bn(x);
  const Values zv = values(z);
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t c = (i / 10) % 3;
    ASSERT_NEAR(zv[i], (xv[i] - want_mean[c]) / std::sqrt(want_var[c] + 1e-5), 1e-4) << i;
  }
  expect_values(bn.running_mean()->data(), want_mean, 1e-5, "running_mean after predict");
}

TEST(BatchNormLayer, MatchesOperatorAndTrainsGammaBeta) {
  nn::BatchNorm bn({.momentum = 0.7, .epsilon = 1e-3});
  bn.initialize();
  const NDArray x = random_array(Shape({3, 4, 6}), 22);
  bn(x);  // complete the deferred shapes (predict mode: no statistics change)
  bn.gamma()->set_data(random_array(Shape({4}), 23, DType::Float32, 0.5, 1.5));
  bn.beta()->set_data(random_array(Shape({4}), 24));
  NDArray mm = bn.running_mean()->data().copy(), mv = bn.running_var()->data().copy();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = bn(x);
  }
  NDArray want;
  {
    autograd::ModeScope train(true);
    want = nd::invoke1("BatchNorm", {x, bn.gamma()->data(), bn.beta()->data(), mm, mv},
                       {{"eps", "0.001"}, {"momentum", "0.7"}, {"fix_gamma", "False"}});
  }
  expect_close(y, want, 1e-6, 1e-6);
  expect_close(bn.running_mean()->data(), mm, 1e-6, 1e-7);
  expect_close(bn.running_var()->data(), mv, 1e-6, 1e-7);
  y.backward();
  // d(sum y)/d beta = number of elements per channel; gamma's gradient is sum(x_hat) = 0.
  expect_values(bn.beta()->grad(), Values(4, 18.0), 1e-4, "beta grad");
  expect_values(bn.gamma()->grad(), Values(4, 0.0), 1e-4, "gamma grad");
}

TEST(BatchNormLayer, GlobalStatsAndFixedGamma) {
  nn::BatchNorm bn({.scale = false, .use_global_stats = true, .in_channels = 2});
  bn.initialize();
  bn.gamma()->set_data(make(Shape({2}), {5, 5}));  // ignored: fix_gamma
  bn.running_mean()->set_data(make(Shape({2}), {1, -1}));
  bn.running_var()->set_data(make(Shape({2}), {4, 9}));
  const NDArray x = make(Shape({1, 2, 2}), {3, 5, 2, -4});
  NDArray y;
  {
    autograd::RecordScope rec;  // training, but use_global_stats keeps the running statistics
    y = bn(x);
  }
  const double e = 1e-5;
  expect_values(y, {2 / std::sqrt(4 + e), 4 / std::sqrt(4 + e), 3 / std::sqrt(9 + e), -3 / std::sqrt(9 + e)}, 1e-5);
  expect_values(bn.running_mean()->data(), {1, -1}, 0, "unchanged");
}

TEST(LayerNormLayer, MatchesOperatorWithDeferredShape) {
  nn::LayerNorm ln;
  EXPECT_EQ(ln.repr(), "LayerNorm(eps=1e-05, axis=-1, center=True, scale=True, in_channels=0)");
  ln.initialize();
  const NDArray x = random_array(Shape({3, 2, 5}), 25);
  const NDArray y = ln(x);
  EXPECT_EQ(ln.gamma()->shape(), Shape({5}));
  EXPECT_EQ(ln.gamma()->name(), ln.prefix() + "gamma");
  EXPECT_EQ(ln.beta()->name(), ln.prefix() + "beta");
  expect_close(y, nd::invoke1("LayerNorm", {x, ln.gamma()->data(), ln.beta()->data()}, {{"eps", "1e-05"}}));
  EXPECT_EQ(ln.repr(), "LayerNorm(eps=1e-05, axis=-1, center=True, scale=True, in_channels=5)");

  nn::LayerNorm ln1({.axis = 1, .epsilon = 1e-3, .center = false, .in_channels = 2});
  EXPECT_EQ(ln1.beta()->grad_req(), GradReq::Null);
  ln1.initialize();
  expect_close(ln1(x), nd::invoke1("LayerNorm", {x, ln1.gamma()->data(), ln1.beta()->data()},
                                   {{"axis", "1"}, {"eps", "0.001"}}));
}

}  // namespace
}  // namespace braid::gluon
