// Dropout, Embedding and Flatten.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/invoke.h"
#include "unit/op/nn/nn_test_util.h"

namespace braid::test::nn_ops {
namespace {

OpCall dropout_call(op::AttrMap attrs, const Shape& s, bool train, uint64_t seed = 7) {
  OpCall c{"Dropout", std::move(attrs), {s}, {random_values(static_cast<size_t>(s.size()), 0.5, 1.5, 41)}};
  c.is_train = train;
  c.seed = seed;
  c.out_grads = {random_values(static_cast<size_t>(s.size()), -1, 1, 42), {}};
  return c;
}

TEST(NnBasicDropout, DropsAboutPAndScalesTheRest) {
  const OpCall c = dropout_call({{"p", "0.3"}}, Shape({100, 100}), true);
  const OpResult r = run_op(c);
  ASSERT_EQ(r.outputs.size(), 2u);  // out and the hidden mask
  const Values &x = c.values[0], &y = r.outputs[0], &mask = r.outputs[1], &g = c.out_grads[0];
  int dropped = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(mask[i] == 0 || std::abs(mask[i] - 1 / 0.7) < 1e-12) << mask[i];
    EXPECT_DOUBLE_EQ(y[i], x[i] * mask[i]);
    EXPECT_DOUBLE_EQ(r.grads[0][i], g[i] * mask[i]);  // backward reuses the mask
    dropped += mask[i] == 0;
  }
  EXPECT_NEAR(dropped / 10000.0, 0.3, 0.02);
  // The same seed gives the same mask, another seed another one.
  EXPECT_EQ(run_op(c).outputs[1], mask);
  EXPECT_NE(run_op(dropout_call({{"p", "0.3"}}, Shape({100, 100}), true, 8)).outputs[1], mask);
}

// p = 1 is allowed (MXNet's range is [0, 1]): training drops everything, backward passes nothing.
// MXNet scales the dropped elements by 1 / (1 - p) too: with p = 1 that is 0 · inf, NaN.
TEST(NnBasicDropout, RateOneGivesMxnetsNaN) {
  const OpCall c = dropout_call({{"p", "1"}}, Shape({10, 10}), true);
  const OpResult r = run_op(c);
  for (size_t i = 0; i < c.values[0].size(); ++i) {
    ASSERT_TRUE(std::isnan(r.outputs[0][i]));
    ASSERT_TRUE(std::isnan(r.grads[0][i]));
  }
  OpCall inference = dropout_call({{"p", "1"}}, Shape({10, 10}), false);
  EXPECT_EQ(run_op(inference).outputs[0], inference.values[0]);
}

TEST(NnBasicDropout, IdentityInInferenceUnlessModeAlways) {
  OpCall c = dropout_call({{"p", "0.5"}}, Shape({4, 5}), false);
  OpResult r = run_op(c);
  EXPECT_EQ(r.outputs[0], c.values[0]);
  EXPECT_EQ(r.grads[0], c.out_grads[0]);
  r = run_op(dropout_call({{"p", "0"}}, Shape({4, 5}), true));
  EXPECT_EQ(r.outputs[0], c.values[0]);
  r = run_op(dropout_call({{"p", "0.5"}, {"mode", "always"}}, Shape({4, 5}), false));
  int dropped = 0;
  for (double m : r.outputs[1]) dropped += m == 0;
  EXPECT_GT(dropped, 0);
}

TEST(NnBasicDropout, AxesShareOneDecision) {
  const Shape s({3, 50, 4});
  const OpResult r = run_op(dropout_call({{"p", "0.5"}, {"axes", "(1,)"}}, s, true));
  const Values& mask = r.outputs[1];
  int dropped = 0;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t k = 0; k < 4; ++k) {
      const double first = mask[static_cast<size_t>(i * 200 + k)];
      dropped += first == 0;
      for (int64_t j = 1; j < 50; ++j) EXPECT_EQ(mask[static_cast<size_t>((i * 50 + j) * 4 + k)], first);
    }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 12);
}

TEST(NnBasicDropout, ImperativeCallAndBadAttributes) {
  NDArray x = make_array(Shape({1000}), Values(1000, 1.0));
  bool prev = autograd::set_training(true);
  auto outs = nd::invoke("Dropout", {x}, {{"p", "0.5"}});
  autograd::set_training(prev);
  ASSERT_EQ(outs.size(), 1u);
  int zeros = 0;
  for (double v : values_of(outs[0])) zeros += v == 0;
  EXPECT_GT(zeros, 400);
  EXPECT_LT(zeros, 600);
  EXPECT_THROW(nd::invoke("Dropout", {x}, {{"p", "1.5"}}), Error);
  EXPECT_THROW(nd::invoke("Dropout", {x}, {{"p", "-0.1"}}), Error);
  EXPECT_THROW(nd::invoke("Dropout", {x}, {{"mode", "sometimes"}}), Error);
  EXPECT_THROW(nd::invoke("Dropout", {x}, {{"axes", "(1,)"}}), Error);
}

TEST(NnBasicEmbedding, LooksUpRowsAndAccumulatesTheirGradients) {
  Values w(12);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i);
  // Indices {1, 3, 3, -1, 7}: out-of-range ones are clipped to 0 and 3, as MXNet.
  OpCall c{"Embedding", {{"input_dim", "4"}, {"output_dim", "3"}}, {Shape({5}), Shape({4, 3})}, {{1, 3, 3, -1, 7}, w}};
  c.out_grads = {Values(15, 1.0)};
  c.out_grads[0][0] = 2;
  OpResult r = run_op(c);
  EXPECT_EQ(r.out_shapes[0], Shape({5, 3}));
  EXPECT_TRUE(all_close(r.outputs[0], {3, 4, 5, 9, 10, 11, 9, 10, 11, 0, 1, 2, 9, 10, 11}));
  EXPECT_TRUE(all_close(r.grads[0], {0, 0, 0, 0, 0}));
  EXPECT_TRUE(all_close(r.grads[1], {1, 1, 1, 2, 1, 1, 0, 0, 0, 3, 3, 3}));
  c.grad_req = {op::OpReq::Null, op::OpReq::Add};
  EXPECT_TRUE(all_close(run_op(c).grads[1], {1.5, 1.5, 1.5, 2.5, 1.5, 1.5, 0.5, 0.5, 0.5, 3.5, 3.5, 3.5}));
}

TEST(NnBasicEmbedding, ImperativeWithIntegerIndicesAndBadAttributes) {
  NDArray idx = make_array(Shape({2, 2}), {0, 1, 1, 0}, DType::Int32);
  NDArray w = make_array(Shape({2, 2}), {1, 2, 3, 4});
  NDArray y = nd::invoke1("Embedding", {idx, w}, {{"input_dim", "2"}, {"output_dim", "2"}});
  EXPECT_EQ(y.shape(), Shape({2, 2, 2}));
  EXPECT_EQ(y.dtype(), DType::Float32);
  EXPECT_TRUE(all_close(values_of(y), {1, 2, 3, 4, 3, 4, 1, 2}));
  EXPECT_THROW(nd::invoke("Embedding", {idx, w}, {{"input_dim", "3"}, {"output_dim", "2"}}), Error);
  EXPECT_THROW(nd::invoke("Embedding", {idx, w}, {{"output_dim", "2"}}), Error);
  // sparse_grad only says how the weight's gradient is kept (its buffer's storage type): same values.
  NDArray with_sparse_grad =
      nd::invoke1("Embedding", {idx, w}, {{"input_dim", "2"}, {"output_dim", "2"}, {"sparse_grad", "True"}});
  EXPECT_TRUE(all_close(values_of(with_sparse_grad), {1, 2, 3, 4, 3, 4, 1, 2}));
  EXPECT_THROW(nd::invoke("Embedding", {idx, w}, {{"input_dim", "2"}, {"output_dim", "2"}, {"sparse_grad", "x"}}),
               Error);
  EXPECT_THROW(nd::invoke("Embedding", {idx, w}, {{"input_dim", "0"}, {"output_dim", "2"}}), Error);
}

TEST(NnBasicFlatten, CollapsesTrailingAxes) {
  OpCall c{"Flatten", {}, {Shape({2, 3, 2})}, {random_values(12, -1, 1, 51)}};
  c.out_grads = {random_values(12, -1, 1, 52)};
  OpResult r = run_op(c);
  EXPECT_EQ(r.out_shapes[0], Shape({2, 6}));
  EXPECT_EQ(r.outputs[0], c.values[0]);
  EXPECT_EQ(r.grads[0], c.out_grads[0]);
  EXPECT_EQ(nd::invoke1("flatten", {make_array(Shape({5}), Values(5, 1.0))}).shape(), Shape({5, 1}));
  EXPECT_THROW(nd::invoke("Flatten", {make_array(Shape({}), {1})}), Error);
}

}  // namespace
}  // namespace braid::test::nn_ops
