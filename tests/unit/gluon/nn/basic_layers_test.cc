// Dropout, Flatten, Embedding, the activation layers and Lambda / HybridLambda: each equals its
// operator called directly; names, parameters and repr as MXNet.
#include <gtest/gtest.h>

#include "../gluon_test_util.h"
#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/dropout.h"
#include "braid/gluon/nn/embedding.h"
#include "braid/gluon/nn/flatten.h"
#include "braid/gluon/nn/lambda.h"
#include "braid/gluon/nn/sequential.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"

namespace braid::gluon {
namespace {

using namespace test_util;

TEST(DropoutLayer, IdentityOutsideTraining) {
  nn::Dropout drop(0.5);
  EXPECT_EQ(drop.repr(), "Dropout(p = 0.5, axes=())");
  EXPECT_EQ(nn::Dropout(0.25, {1, 2}).repr(), "Dropout(p = 0.25, axes=(1, 2))");
  const NDArray x = random_array(Shape({4, 6}), 31);
  expect_close(drop(x), x);
  {
    autograd::PauseScope pause;  // recording off, predict mode
    expect_close(drop(x), x);
  }
}

TEST(DropoutLayer, DropsAndScalesInTraining) {
  nn::Dropout drop(0.5), shared(0.5, {1}), none(0.0);
  const NDArray x = random_array(Shape({8, 50}), 32, DType::Float32, 1, 2);
  NDArray y, ys, y0;
  {
    autograd::RecordScope rec;
    y = drop(x);
    ys = shared(x);
    y0 = none(x);
  }
  const Values xv = values(x), yv = values(y), sv = values(ys);
  int dropped = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    ASSERT_TRUE(yv[i] == 0 || std::abs(yv[i] - 2 * xv[i]) < 1e-6) << i;
    dropped += yv[i] == 0;
  }
  EXPECT_GT(dropped, 100);
  EXPECT_LT(dropped, 300);
  // axes=(1,): one decision per row.
  for (size_t r = 0; r < 8; ++r)
    for (size_t c = 1; c < 50; ++c) ASSERT_EQ(sv[r * 50 + c] == 0, sv[r * 50] == 0) << r << "," << c;
  expect_close(y0, x);                // rate 0 copies in training too
  EXPECT_NO_THROW(nn::Dropout(1.0));  // MXNet allows rate 1 (everything dropped in training)
  EXPECT_THROW(nn::Dropout(1.5), Error);
}

TEST(FlattenLayer, CollapsesAllButTheBatchAxis) {
  nn::Flatten flat;
  const NDArray x = random_array(Shape({2, 3, 4}), 33);
  const NDArray y = flat(x);
  EXPECT_EQ(y.shape(), Shape({2, 12}));
  expect_values(y, values(x), 0);
  EXPECT_EQ(flat.repr(), "Flatten");
}

TEST(EmbeddingLayer, LooksUpRows) {
  nn::Embedding emb(10, 4);
  EXPECT_EQ(emb.weight()->name(), emb.prefix() + "weight");
  EXPECT_EQ(emb.weight()->shape(), Shape({10, 4}));
  EXPECT_EQ(emb.repr(), "Embedding(10 -> 4, float32)");
  emb.initialize();
  const NDArray idx = make(Shape({2, 3}), {0, 9, 3, 3, 1, 2});
  const NDArray y = emb(idx);
  EXPECT_EQ(y.shape(), Shape({2, 3, 4}));
  expect_close(y, nd::invoke1("Embedding", {idx, emb.weight()->data()}, {{"input_dim", "10"}, {"output_dim", "4"}}));
  nn::Embedding emb64(5, 2, {.dtype = DType::Float64});
  EXPECT_EQ(emb64.weight()->dtype(), DType::Float64);
  EXPECT_EQ(emb64.repr(), "Embedding(5 -> 2, float64)");
}

TEST(ActivationLayers, EachMatchesItsOperator) {
  const NDArray x = random_array(Shape({3, 4}), 34, DType::Float32, -3, 3);
  nn::Activation relu("relu"), tanh("tanh");
  expect_close(relu(x), nd::invoke1("Activation", {x}, {{"act_type", "relu"}}));
  expect_close(tanh(x), nd::invoke1("Activation", {x}, {{"act_type", "tanh"}}));
  EXPECT_EQ(relu.repr(), "Activation(relu)");
  EXPECT_EQ(relu.prefix().rfind("relu", 0), 0u) << relu.prefix();  // named after act_type, as MXNet
  nn::LeakyReLU leaky(0.1);
  expect_close(leaky(x), nd::invoke1("LeakyReLU", {x}, {{"act_type", "leaky"}, {"slope", "0.1"}}));
  EXPECT_EQ(leaky.repr(), "LeakyReLU(0.1)");
  nn::ELU elu, elu2(2.0);
  expect_close(elu(x), nd::invoke1("LeakyReLU", {x}, {{"act_type", "elu"}, {"slope", "1"}}));
  expect_close(elu2(x), nd::invoke1("LeakyReLU", {x}, {{"act_type", "elu"}, {"slope", "2"}}));
  nn::SELU selu;
  expect_close(selu(x), nd::invoke1("LeakyReLU", {x}, {{"act_type", "selu"}}));
  nn::GELU gelu;
  expect_close(gelu(x), nd::invoke1("LeakyReLU", {x}, {{"act_type", "gelu"}}));
  // MXNet 1.x has no __repr__ for these: Block's default with no children.
  EXPECT_EQ(selu.repr(), "SELU(\n\n)");
  EXPECT_EQ(elu.prefix().rfind("elu", 0), 0u);
  EXPECT_THROW(nn::Activation("swish"), Error);
  // Arguments print as Python's repr of a float.
  EXPECT_EQ(nn::LeakyReLU(1.0).repr(), "LeakyReLU(1.0)");
  EXPECT_EQ(nn::LeakyReLU(1e-5).repr(), "LeakyReLU(1e-05)");
  EXPECT_EQ(nn::LeakyReLU(0.0001).repr(), "LeakyReLU(0.0001)");
  EXPECT_EQ(nn::LeakyReLU(1.0 / 3).repr(), "LeakyReLU(0.3333333333333333)");
  EXPECT_EQ(nn::LeakyReLU(123456.5).repr(), "LeakyReLU(123456.5)");
  EXPECT_EQ(nn::LeakyReLU(1e16).repr(), "LeakyReLU(1e+16)");
  EXPECT_EQ(nn::LeakyReLU(2.5e-7).repr(), "LeakyReLU(2.5e-07)");
  EXPECT_EQ(nn::LeakyReLU(0).repr(), "LeakyReLU(0.0)");
  EXPECT_THROW(nn::LeakyReLU(-0.1), Error);
}

TEST(ActivationLayers, PReLULearnsItsSlope) {
  nn::PReLU prelu;
  EXPECT_EQ(prelu.alpha()->name(), prelu.prefix() + "alpha");
  EXPECT_EQ(prelu.alpha()->shape(), Shape({1}));
  EXPECT_EQ(prelu.repr(), "PReLU(\n\n)");
  prelu.initialize();
  const NDArray x = make(Shape({2, 2}), {-2, 1, 3, -4});
  NDArray y;
  {
    autograd::RecordScope rec;
    y = prelu(x);
  }
  expect_values(y, {-0.5, 1, 3, -1}, 1e-7);  // alpha initialized to 0.25
  y.backward();
  expect_values(prelu.alpha()->grad(), {-6}, 1e-6);  // sum of the negative inputs
  nn::PReLU per_channel({.alpha_initializer = std::make_shared<init::Constant>(0.5), .in_channels = 2});
  per_channel.initialize();
  expect_values(per_channel(x), {-1, 1, 3, -2}, 1e-7);
}

TEST(LambdaLayers, WrapFunctionsAndOperators) {
  nn::Lambda by_name("tanh");
  const NDArray x = random_array(Shape({2, 3}), 35);
  expect_close(by_name(x), nd::tanh(x));
  EXPECT_EQ(by_name.repr(), "Lambda(tanh)");
  EXPECT_EQ(by_name.prefix().rfind("lambda", 0), 0u);
  nn::Lambda split([](const std::vector<NDArray>& in) { return std::vector<NDArray>{in[0] * 2.0, in[0] + 1.0}; });
  EXPECT_EQ(split.repr(), "Lambda(<lambda>)");
  const auto outs = split.forward({x});
  ASSERT_EQ(outs.size(), 2u);
  expect_close(outs[1], x + 1.0);
  EXPECT_THROW(nn::Lambda("no_such_op"), Error);

  // HybridLambda sits in a HybridSequential, and autograd goes through it.
  auto twice = std::make_shared<nn::HybridLambda>(
      [](const std::vector<NDArray>& in) { return std::vector<NDArray>{in[0] * in[0]}; }, "square");
  EXPECT_EQ(twice->repr(), "HybridLambda(square)");
  EXPECT_EQ(nn::HybridLambda("relu").repr(), "HybridLambda(relu)");
  nn::HybridSequential net;
  net.add(twice);
  NDArray v = x.copy();
  v.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = net(v);
  }
  y.backward();
  expect_close(v.grad(), 2.0 * x, 1e-6);
}

}  // namespace
}  // namespace braid::gluon
