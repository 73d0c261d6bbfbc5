// softmax, log_softmax, softmin, SoftmaxOutput and softmax_cross_entropy against values worked
// out by hand. Logits {0, ln 2, ln 5} give probabilities {1/8, 1/4, 5/8}.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/ndarray/invoke.h"
#include "unit/op/nn/nn_test_util.h"

namespace braid::test::nn_ops {
namespace {

const double kL2 = std::log(2.0), kL5 = std::log(5.0), kL8 = std::log(8.0);
const Values kP = {1.0 / 8, 1.0 / 4, 5.0 / 8};

OpResult run1(const std::string& op, op::AttrMap attrs, const Shape& s, const Values& x, const Values& g) {
  OpCall c{op, std::move(attrs), {s}, {x}};
  c.out_grads = {g};
  return run_op(c);
}

TEST(NnBasicSoftmax, HandValuesAndGradients) {
  OpResult r = run1("softmax", {}, Shape({1, 3}), {0, kL2, kL5}, {1, 0, 0});
  EXPECT_TRUE(all_close(r.outputs[0], kP));
  // dx = y * (g - sum(g * y)) = y * (g - 1/8).
  EXPECT_TRUE(all_close(r.grads[0], {7.0 / 64, -2.0 / 64, -5.0 / 64}));

  r = run1("softmax", {{"temperature", "2"}}, Shape({3}), {0, 2 * kL2, 2 * kL5}, {1, 0, 0});
  EXPECT_TRUE(all_close(r.outputs[0], kP));
  EXPECT_TRUE(all_close(r.grads[0], {7.0 / 128, -2.0 / 128, -5.0 / 128}));

  r = run1("log_softmax", {}, Shape({3}), {0, kL2, kL5}, {1, 0, 0});
  EXPECT_TRUE(all_close(r.outputs[0], {-kL8, kL2 - kL8, kL5 - kL8}));
  EXPECT_TRUE(all_close(r.grads[0], {7.0 / 8, -1.0 / 4, -5.0 / 8}));  // g - softmax * sum(g)

  r = run1("softmin", {}, Shape({3}), {0, -kL2, -kL5}, {1, 0, 0});
  EXPECT_TRUE(all_close(r.outputs[0], kP));
  EXPECT_TRUE(all_close(r.grads[0], {-7.0 / 64, 2.0 / 64, 5.0 / 64}));

  // axis 0 of (3, 2): column 0 holds the logits above, column 1 zeros.
  r = run1("softmax", {{"axis", "0"}}, Shape({3, 2}), {0, 0, kL2, 0, kL5, 0}, Values(6, 0.0));
  EXPECT_TRUE(all_close(r.outputs[0], {kP[0], 1.0 / 3, kP[1], 1.0 / 3, kP[2], 1.0 / 3}));
}

// MXNet's older SoftmaxActivation: instance mode over all of a sample, channel mode over axis 1.
TEST(NnBasicSoftmax, SoftmaxActivationModes) {
  // One sample of shape (3, 1): instance mode normalizes its 3 values.
  OpResult r = run1("SoftmaxActivation", {}, Shape({1, 3, 1}), {0, kL2, kL5}, {1, 0, 0});
  EXPECT_TRUE(all_close(r.outputs[0], kP));
  EXPECT_TRUE(all_close(r.grads[0], {7.0 / 64, -2.0 / 64, -5.0 / 64}));
  // (1, 3, 2) in channel mode: each of the 2 positions over the 3 channels; position 0 holds the
  // logits above, position 1 zeros. Instance mode mixes all 6.
  const Values x = {0, 0, kL2, 0, kL5, 0};
  r = run1("SoftmaxActivation", {{"mode", "channel"}}, Shape({1, 3, 2}), x, Values(6, 0.0));
  EXPECT_TRUE(all_close(r.outputs[0], {kP[0], 1.0 / 3, kP[1], 1.0 / 3, kP[2], 1.0 / 3}));
  r = run1("SoftmaxActivation", {{"mode", "instance"}}, Shape({1, 3, 2}), x, Values(6, 0.0));
  EXPECT_TRUE(all_close(r.outputs[0], {1.0 / 11, 1.0 / 11, 2.0 / 11, 1.0 / 11, 5.0 / 11, 1.0 / 11}));
  EXPECT_THROW(run1("SoftmaxActivation", {{"mode", "pixel"}}, Shape({1, 3}), {0, 0, 0}, {0, 0, 0}), Error);
  EXPECT_THROW(run1("SoftmaxActivation", {{"mode", "channel"}}, Shape({3}), {0, 0, 0}, {0, 0, 0}), Error);
}

TEST(NnBasicSoftmax, LengthMasksTheTailOfEachRow) {
  OpCall c{"softmax",
           {{"use_length", "True"}},
           {Shape({3, 3}), Shape({3})},
           {{0, kL2, kL5, 0, kL2, kL5, 1, 2, 3}, {2, 3, 0}}};
  c.out_grads = {{1, 0, 7, 1, 0, 0, 5, 5, 5}};
  OpResult r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {1.0 / 3, 2.0 / 3, 0, kP[0], kP[1], kP[2], 0, 0, 0}));
  // Row 0: y = {1/3, 2/3}, sum(g * y) = 1/3: dx = {1/3 * 2/3, 2/3 * -1/3, 0}.
  EXPECT_TRUE(all_close(r.grads[0], {2.0 / 9, -2.0 / 9, 0, 7.0 / 64, -2.0 / 64, -5.0 / 64, 0, 0, 0}));
  EXPECT_TRUE(all_close(r.grads[1], {0, 0, 0}));

  c.op = "log_softmax";
  r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {std::log(1.0 / 3), std::log(2.0 / 3), 0, -kL8, kL2 - kL8, kL5 - kL8, 0, 0, 0}));
}

TEST(NnBasicSoftmax, DtypeAttributeSetsTheOutputType) {
  NDArray x = make_array(Shape({3}), {0, kL2, kL5});
  NDArray y = nd::invoke1("softmax", {x}, {{"dtype", "float64"}});
  EXPECT_EQ(y.dtype(), DType::Float64);
  EXPECT_TRUE(all_close(values_of(y), kP, 1e-6, 1e-7));
  EXPECT_EQ(nd::invoke1("log_softmax", {x}).dtype(), DType::Float32);
}

TEST(NnBasicSoftmax, BadAttributesThrow) {
  NDArray x = make_array(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(nd::invoke("softmax", {x}, {{"axis", "2"}}), Error);
  EXPECT_THROW(nd::invoke("softmax", {x}, {{"temperature", "0"}}), Error);
  EXPECT_THROW(nd::invoke("softmax", {x}, {{"dtype", "int32"}}), Error);
  EXPECT_THROW(nd::invoke("log_softmax", {x, make_array(Shape({3}), {1, 1, 1})}, {{"use_length", "True"}}), Error);
  EXPECT_NO_THROW(nd::invoke("softmax", {x, make_array(Shape({2}), {1, 2}, DType::Int32)}, {{"use_length", "True"}}));
  nd::waitall();
}

// Rows {0, ln 2, ln 5} and {0, 0, 0} with labels {2, 0}.
OpCall softmax_output_call(op::AttrMap attrs) {
  OpCall c{"SoftmaxOutput", std::move(attrs), {Shape({2, 3}), Shape({2})}, {{0, kL2, kL5, 0, 0, 0}, {2, 0}}};
  c.out_grads = {{5, -3, 2, 7, 1, 1}};  // ignored unless out_grad=True
  return c;
}

TEST(NnBasicSoftmaxOutput, ForwardIsSoftmaxBackwardIsCrossEntropyGradient) {
  const Values onehot_grad = {1.0 / 8, 1.0 / 4, -3.0 / 8, -2.0 / 3, 1.0 / 3, 1.0 / 3};
  auto scaled = [&](double s) {
    Values v = onehot_grad;
    for (auto& x : v) x *= s;
    return v;
  };
  OpResult r = run_op(softmax_output_call({}));
  EXPECT_TRUE(all_close(r.outputs[0], {kP[0], kP[1], kP[2], 1.0 / 3, 1.0 / 3, 1.0 / 3}));
  EXPECT_TRUE(all_close(r.grads[0], onehot_grad));
  EXPECT_TRUE(all_close(r.grads[1], {0, 0}));
  EXPECT_TRUE(all_close(run_op(softmax_output_call({{"grad_scale", "3"}})).grads[0], scaled(3)));
  EXPECT_TRUE(all_close(run_op(softmax_output_call({{"normalization", "batch"}})).grads[0], scaled(0.5)));
  // valid: ignored labels do not count; the ignored row gets no gradient.
  r = run_op(softmax_output_call({{"normalization", "valid"}, {"use_ignore", "True"}, {"ignore_label", "0"}}));
  EXPECT_TRUE(all_close(r.grads[0], {1.0 / 8, 1.0 / 4, -3.0 / 8, 0, 0, 0}));
  r = run_op(softmax_output_call({{"out_grad", "True"}}));
  Values expect = onehot_grad;
  for (size_t i = 0; i < expect.size(); ++i) expect[i] *= softmax_output_call({}).out_grads[0][i];
  EXPECT_TRUE(all_close(r.grads[0], expect));
}

TEST(NnBasicSoftmaxOutput, LabelSmoothing) {
  // alpha 0.3 over 3 classes: target 0.7 for the label, 0.15 elsewhere.
  OpResult r = run_op(softmax_output_call({{"smooth_alpha", "0.3"}}));
  EXPECT_TRUE(all_close(
      r.grads[0], {1.0 / 8 - 0.15, 1.0 / 4 - 0.15, 5.0 / 8 - 0.7, 1.0 / 3 - 0.7, 1.0 / 3 - 0.15, 1.0 / 3 - 0.15}));
}

TEST(NnBasicSoftmaxOutput, MultiOutputAndPreserveShape) {
  // multi_output: data (1, 3, 2), classes on axis 1; positions hold the two rows above.
  OpCall c{
      "SoftmaxOutput", {{"multi_output", "True"}}, {Shape({1, 3, 2}), Shape({1, 2})}, {{0, 0, kL2, 0, kL5, 0}, {2, 0}}};
  c.out_grads = {Values(6, 1.0)};
  OpResult r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {kP[0], 1.0 / 3, kP[1], 1.0 / 3, kP[2], 1.0 / 3}));
  // "null" normalization divides by the positions per sample (2) in multi_output mode.
  EXPECT_TRUE(all_close(r.grads[0], {1.0 / 16, -1.0 / 3, 1.0 / 8, 1.0 / 6, -3.0 / 16, 1.0 / 6}));

  c = {"SoftmaxOutput",
       {{"preserve_shape", "True"}},
       {Shape({1, 2, 3}), Shape({1, 2})},
       {{0, kL2, kL5, 0, 0, 0}, {2, 0}}};
  c.out_grads = {Values(6, 1.0)};
  r = run_op(c);
  EXPECT_TRUE(all_close(r.grads[0], {1.0 / 8, 1.0 / 4, -3.0 / 8, -2.0 / 3, 1.0 / 3, 1.0 / 3}));

  // Probabilities as labels (label shaped like data): grad = softmax - label.
  c = {"SoftmaxOutput", {{"normalization", "batch"}}, {Shape({1, 3}), Shape({1, 3})}, {{0, kL2, kL5}, {0.5, 0.5, 0}}};
  c.out_grads = {Values(3, 1.0)};
  EXPECT_TRUE(all_close(run_op(c).grads[0], {1.0 / 8 - 0.5, 1.0 / 4 - 0.5, 5.0 / 8}));
}

TEST(NnBasicSoftmaxOutput, BadLabelShapesThrow) {
  NDArray x = make_array(Shape({2, 3}), Values(6, 0.0));
  EXPECT_THROW(nd::invoke("SoftmaxOutput", {x, make_array(Shape({3}), {0, 1, 2})}), Error);
  EXPECT_THROW(nd::invoke("SoftmaxOutput", {x, make_array(Shape({2, 2}), {0, 1, 2, 0})}), Error);
  EXPECT_THROW(nd::invoke("SoftmaxOutput", {x, make_array(Shape({2}), {0, 1})}, {{"normalization", "all"}}), Error);
  EXPECT_NO_THROW(nd::invoke("Softmax", {x, make_array(Shape({2}), {0, 1})}));  // MXNet's old name
  nd::waitall();
  // A label naming no class is not an error (MXNet's rule, NnBasicLoss tests its gradient).
  OpCall c = softmax_output_call({});
  c.values[1] = {3, 0};  // class 3 of 3
  EXPECT_NO_THROW(run_op(c));
}

TEST(NnBasicSoftmaxCrossEntropy, HandValues) {
  OpCall c{"softmax_cross_entropy", {}, {Shape({2, 3}), Shape({2})}, {{0, kL2, kL5, 0, 0, 0}, {2, 0}}};
  c.out_grads = {{2}};
  OpResult r = run_op(c);
  EXPECT_EQ(r.out_shapes[0], Shape({1}));
  EXPECT_TRUE(all_close(r.outputs[0], {std::log(8.0 / 5) + std::log(3.0)}));
  EXPECT_TRUE(all_close(r.grads[0], {1.0 / 4, 1.0 / 2, -3.0 / 4, -4.0 / 3, 2.0 / 3, 2.0 / 3}));
  NDArray x = make_array(Shape({2, 3}), Values(6, 0.0));
  EXPECT_THROW(nd::invoke("softmax_cross_entropy", {x, make_array(Shape({3}), {0, 1, 2})}), Error);
  EXPECT_THROW(nd::invoke("softmax_cross_entropy", {make_array(Shape({6}), Values(6, 0.0)), x}), Error);
  c.values[1] = {-1, 0};
  EXPECT_THROW(run_op(c), Error);
}

}  // namespace
}  // namespace braid::test::nn_ops
