// Activation and LeakyReLU against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/ndarray/invoke.h"
#include "braid/op/registry.h"
#include "unit/op/nn/nn_test_util.h"

namespace braid::test::nn_ops {
namespace {

OpResult unary(const std::string& op, op::AttrMap attrs, const Values& x, const Values& g, DType t = DType::Float64,
               bool train = false) {
  OpCall c{op, std::move(attrs), {Shape({static_cast<int64_t>(x.size())})}, {x}};
  c.out_grads = {g};
  c.dtype = t;
  c.is_train = train;
  return run_op(c);
}

TEST(NnBasicActivation, HandValues) {
  const double l3 = std::log(3.0), l2 = std::log(2.0);
  struct Case {
    const char* act;
    Values x, y, dy;  // dy: derivative at x
  } cases[] = {
      {"relu", {-2, -0.5, 0, 1.5}, {0, 0, 0, 1.5}, {0, 0, 0, 1}},
      {"sigmoid", {0, l3, -l3}, {0.5, 0.75, 0.25}, {0.25, 0.1875, 0.1875}},
      {"tanh", {0, l2, -l2}, {0, 0.6, -0.6}, {1, 0.64, 0.64}},
      {"softrelu", {0, l3, 30}, {l2, std::log(4.0), 30}, {0.5, 0.75, 1}},
      {"softsign", {1, -3, 0}, {0.5, -0.75, 0}, {0.25, 1.0 / 16, 1}},
  };
  for (const auto& c : cases) {
    for (DType t : {DType::Float64, DType::Float32}) {
      const double tol = t == DType::Float64 ? 1e-12 : 1e-6;
      Values g(c.x.size());
      for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<double>(i) + 1;
      OpResult r = unary("Activation", {{"act_type", c.act}}, c.x, g, t);
      EXPECT_TRUE(all_close(r.outputs[0], c.y, tol, tol)) << c.act;
      Values dx(c.x.size());
      for (size_t i = 0; i < dx.size(); ++i) dx[i] = g[i] * c.dy[i];
      EXPECT_TRUE(all_close(r.grads[0], dx, tol, tol)) << c.act << " gradient";
    }
  }
}

TEST(NnBasicActivation, BackwardHonoursAddAndNull) {
  OpCall c{"Activation", {{"act_type", "relu"}}, {Shape({3})}, {{-1, 2, 3}}};
  c.out_grads = {{1, 1, 2}};
  c.grad_req = {op::OpReq::Add};
  EXPECT_TRUE(all_close(run_op(c).grads[0], {0.5, 1.5, 2.5}));  // buffers start at 0.5
  c.grad_req = {op::OpReq::Null};
  EXPECT_TRUE(all_close(run_op(c).grads[0], {0.5, 0.5, 0.5}));
}

TEST(NnBasicActivation, BadAttributesThrow) {
  NDArray x = make_array(Shape({2}), {1, 2});
  EXPECT_THROW(nd::invoke("Activation", {x}, {}), Error);  // act_type is required
  EXPECT_THROW(nd::invoke("Activation", {x}, {{"act_type", "swish"}}), Error);
  EXPECT_THROW(nd::invoke("Activation", {x}, {{"act_type", "relu"}, {"slope", "0.1"}}), Error);
  EXPECT_THROW(nd::invoke("LeakyReLU", {x}, {{"act_type", "swish"}}), Error);
  EXPECT_THROW(nd::invoke("LeakyReLU", {x}, {{"act_type", "rrelu"}, {"lower_bound", "0.5"}, {"upper_bound", "0.1"}}),
               Error);
  EXPECT_THROW(nd::invoke("LeakyReLU", {x, x}, {}), Error);  // leaky takes data only
}

TEST(NnBasicLeakyReLU, HandValues) {
  const double l2 = std::log(2.0);
  const double lambda = 1.0507009873554804934193349852946, alpha = 1.6732632423543772848170429916717;
  const double phi1 = 0.8413447460685429, pdf1 = 0.24197072451914337;  // N(0,1) cdf and density at 1
  struct Case {
    op::AttrMap attrs;
    Values x, y, dy;
  } cases[] = {
      {{}, {-4, 2}, {-1, 2}, {0.25, 1}},
      {{{"act_type", "leaky"}, {"slope", "0.1"}}, {-4, 2}, {-0.4, 2}, {0.1, 1}},
      {{{"act_type", "elu"}, {"slope", "0.5"}}, {-l2, 3}, {-0.25, 3}, {0.25, 1}},
      {{{"act_type", "selu"}}, {-l2, 1}, {-lambda * alpha / 2, lambda}, {lambda * alpha / 2, lambda}},
      {{{"act_type", "gelu"}}, {0, 1, -1}, {0, phi1, -(1 - phi1)}, {0.5, phi1 + pdf1, 1 - phi1 - pdf1}},
  };
  for (const auto& c : cases) {
    OpResult r = unary("LeakyReLU", c.attrs, c.x, Values(c.x.size(), 2.0));
    EXPECT_TRUE(all_close(r.outputs[0], c.y, 1e-12, 1e-12)) << c.x[0];
    Values dx(c.dy);
    for (auto& v : dx) v *= 2;
    EXPECT_TRUE(all_close(r.grads[0], dx, 1e-12, 1e-12)) << c.x[0];
  }
}

TEST(NnBasicLeakyReLU, PReLUBroadcastsGammaOverAxisOne) {
  // data (1, 2, 2): channel 0 holds {-1, 2}, channel 1 {-3, 4}.
  OpCall c{"LeakyReLU", {{"act_type", "prelu"}}, {Shape({1, 2, 2}), Shape({2})}, {{-1, 2, -3, 4}, {0.1, 0.2}}};
  c.out_grads = {{1, 1, 1, 2}};
  OpResult r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {-0.1, 2, -0.6, 4}));
  EXPECT_TRUE(all_close(r.grads[0], {0.1, 1, 0.2, 2}));
  EXPECT_TRUE(all_close(r.grads[1], {-1, -3}));  // sum of g * x where x <= 0

  c.shapes[1] = Shape({1});  // one slope for everything
  c.values[1] = {0.5};
  r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {-0.5, 2, -1.5, 4}));
  EXPECT_TRUE(all_close(r.grads[1], {-4}));

  NDArray x = make_array(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(nd::invoke("LeakyReLU", {x, make_array(Shape({4}), {1, 2, 3, 4})}, {{"act_type", "prelu"}}), Error);
  // gamma's shape is inferred as (channels,) when unknown.
  const op::OpDef& def = op::Registry::get().find("LeakyReLU");
  std::any p = def.parse({{"act_type", "prelu"}});
  std::vector<Shape> in = {Shape({5, 7, 2}), Shape()}, out(1), aux;
  EXPECT_TRUE(def.infer_shape(p, in, out, aux));
  EXPECT_EQ(in[1], Shape({7}));
}

TEST(NnBasicLeakyReLU, RReLURandomSlopesInTrainingMeanOtherwise) {
  const Values x = {-1, -2, 3, -4, -5, -6, -7, 8};
  OpCall c{"LeakyReLU", {{"act_type", "rrelu"}, {"lower_bound", "0.1"}, {"upper_bound", "0.3"}}, {Shape({8})}, {x}};
  c.out_grads = {Values(8, 1.0), {}};
  c.is_train = true;
  OpResult r = run_op(c);
  ASSERT_EQ(r.outputs.size(), 2u);  // out and the hidden slopes
  const Values& mask = r.outputs[1];
  bool differ = false;
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_GE(mask[i], 0.1);
    EXPECT_LE(mask[i], 0.3);
    EXPECT_DOUBLE_EQ(r.outputs[0][i], x[i] > 0 ? x[i] : x[i] * mask[i]);
    EXPECT_DOUBLE_EQ(r.grads[0][i], x[i] > 0 ? 1.0 : mask[i]);
    differ = differ || mask[i] != mask[0];
  }
  EXPECT_TRUE(differ);
  c.is_train = false;
  r = run_op(c);
  EXPECT_TRUE(all_close(r.outputs[0], {-0.2, -0.4, 3, -0.8, -1, -1.2, -1.4, 8}, 1e-12, 1e-12));
}

}  // namespace
}  // namespace braid::test::nn_ops
