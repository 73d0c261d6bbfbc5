// The output layers (SoftmaxOutput, Linear/MAE/LogisticRegressionOutput) return the gradient of
// an implied loss, not of their output: check it against finite differences of that loss, and
// the regression outputs against hand values.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "braid/ndarray/invoke.h"
#include "unit/op/nn/nn_test_util.h"

namespace braid::test::nn_ops {
namespace {

// Compares backward's gradient of the data with central differences of loss(forward outputs).
void check_loss_gradient(OpCall call, const std::function<double(const Values& out, const Values& label)>& loss) {
  call.out_grads = {Values(static_cast<size_t>(call.shapes[0].size()), 0.0)};  // ignored by these ops
  const Values analytic = run_op(call).grads[0];
  const double eps = 1e-6;
  for (size_t j = 0; j < call.values[0].size(); ++j) {
    OpCall plus = call, minus = call;
    plus.values[0][j] += eps;
    minus.values[0][j] -= eps;
    const double numeric =
        (loss(run_op(plus).outputs[0], call.values[1]) - loss(run_op(minus).outputs[0], call.values[1])) / (2 * eps);
    EXPECT_NEAR(analytic[j], numeric, 1e-6 + 1e-5 * std::abs(numeric)) << call.op << " element " << j;
  }
}

// Cross-entropy summed over (outer, inner) positions with classes on the middle axis.
std::function<double(const Values&, const Values&)> cross_entropy(int64_t classes, int64_t inner, double scale,
                                                                  double ignore = -1e9) {
  return [=](const Values& p, const Values& label) {
    double l = 0;
    for (size_t r = 0; r < label.size(); ++r) {
      if (label[r] == ignore) continue;
      const auto o = static_cast<int64_t>(r) / inner, k = static_cast<int64_t>(r) % inner;
      l -= std::log(p[static_cast<size_t>((o * classes + static_cast<int64_t>(label[r])) * inner + k)]);
    }
    return l * scale;
  };
}

TEST(NnBasicLoss, SoftmaxOutputGradientIsTheCrossEntropyGradient) {
  const Values x = random_values(12, -2, 2, 31);
  OpCall c{"SoftmaxOutput", {}, {Shape({4, 3}), Shape({4})}, {x, {2, 0, 1, 1}}};
  check_loss_gradient(c, cross_entropy(3, 1, 1));
  c.attrs = {{"grad_scale", "0.5"}, {"normalization", "batch"}};
  check_loss_gradient(c, cross_entropy(3, 1, 0.5 / 4));
  c.attrs = {{"use_ignore", "True"}, {"ignore_label", "1"}, {"normalization", "valid"}};
  check_loss_gradient(c, cross_entropy(3, 1, 1.0 / 2, 1));
  // multi_output: (2, 3, 2), per-position losses averaged over the positions ("null").
  c = {"SoftmaxOutput", {{"multi_output", "True"}}, {Shape({2, 3, 2}), Shape({2, 2})}, {x, {0, 2, 1, 1}}};
  check_loss_gradient(c, cross_entropy(3, 2, 0.5));
}

// MXNet's rule for a label naming no class (-1 or 3 of 3 classes, without use_ignore): its row
// gets no target, so the gradient there is the softmax itself; other rows are unchanged.
TEST(NnBasicLoss, SoftmaxOutputLabelsOutsideTheClassesGetNoTarget) {
  const Values x = random_values(12, -2, 2, 32);
  OpCall c{"SoftmaxOutput", {}, {Shape({4, 3}), Shape({4})}, {x, {2, -1, 3, 1}}};
  c.out_grads = {Values(12, 0.0)};
  const auto r = run_op(c);
  for (size_t row = 0; row < 4; ++row)
    for (size_t k = 0; k < 3; ++k) {
      const size_t j = row * 3 + k;
      const bool target = (row == 0 && k == 2) || (row == 3 && k == 1);
      EXPECT_NEAR(r.grads[0][j], r.outputs[0][j] - (target ? 1.0 : 0.0), 1e-12) << "element " << j;
    }
}

TEST(NnBasicLoss, RegressionOutputsGiveTheirLossGradients) {
  const Values x = random_values(6, -2, 2, 32), label = random_values(6, 0.05, 0.95, 33);
  const double scale = 3.0 / 2;  // grad_scale 3, num_output = 6 / 3
  auto sum = [](auto f) {
    return [f](const Values& out, const Values& l) {
      double s = 0;
      for (size_t i = 0; i < out.size(); ++i) s += f(out[i], l[i]);
      return s;
    };
  };
  OpCall c{"LinearRegressionOutput", {{"grad_scale", "3"}}, {Shape({3, 2}), Shape({3, 2})}, {x, label}};
  check_loss_gradient(c, sum([=](double o, double l) { return scale * (o - l) * (o - l) / 2; }));
  c.op = "MAERegressionOutput";
  check_loss_gradient(c, sum([=](double o, double l) { return scale * std::abs(o - l); }));
  c.op = "LogisticRegressionOutput";  // outputs are sigmoid(x): loss in terms of x
  check_loss_gradient(c,
                      sum([=](double p, double l) { return -scale * (l * std::log(p) + (1 - l) * std::log(1 - p)); }));
}

TEST(NnBasicLoss, RegressionHandValuesAndShapes) {
  OpCall c{
      "LinearRegressionOutput", {{"grad_scale", "2"}}, {Shape({2, 2}), Shape({2, 2})}, {{1, 2, 3, 4}, {0, 2, 3, 1}}};
  c.out_grads = {{9, 9, 9, 9}};
  OpResult r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {1, 2, 3, 4}));
  EXPECT_TRUE(all_close(r.grads[0], {1, 0, 0, 3}));  // (out - label) * 2 / 2
  EXPECT_TRUE(all_close(r.grads[1], {0, 0, 0, 0}));
  c.op = "MAERegressionOutput";
  EXPECT_TRUE(all_close(run_op(c).grads[0], {1, 0, 0, 1}));
  c.op = "LogisticRegressionOutput";
  c.values[0] = {0, 0, std::log(3.0), 0};
  EXPECT_TRUE(all_close(run_op(c).outputs[0], {0.5, 0.5, 0.75, 0.5}));

  // A (batch, 1) output takes a (batch,) label; otherwise the label needs the data's first
  // dimension and size.
  NDArray x = make_array(Shape({3, 1}), {1, 2, 3});
  EXPECT_NO_THROW(nd::invoke("LinearRegressionOutput", {x, make_array(Shape({3}), {1, 2, 3})}));
  EXPECT_NO_THROW(nd::invoke("LinearRegressionOutput", {make_array(Shape({2, 3}), Values(6, 0.0)),
                                                        make_array(Shape({2, 3, 1}), Values(6, 0.0))}));
  EXPECT_THROW(nd::invoke("LinearRegressionOutput", {x, make_array(Shape({4}), {1, 2, 3, 4})}), Error);
  EXPECT_THROW(nd::invoke("LogisticRegressionOutput",
                          {make_array(Shape({2, 3}), Values(6, 0.0)), make_array(Shape({3, 2}), Values(6, 0.0))}),
               Error);
  EXPECT_THROW(nd::invoke("MAERegressionOutput", {x, x}, {{"scale", "2"}}), Error);
  nd::waitall();
}

}  // namespace
}  // namespace braid::test::nn_ops
