// The executor against the imperative path: same kernels, so the same numbers, with and without
// memory planning and fusion; its graph passes observed through plan_stats.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/executor.h"

namespace braid {
namespace {

std::vector<float> values(const NDArray& a) { return a.to_vector<float>(); }

void expect_close(const NDArray& got, const NDArray& want, double rtol, const std::string& what) {
  std::vector<float> g = values(got), w = values(want);
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], w[i], 1e-6 + rtol * std::abs(w[i])) << what << " element " << i;
}

/// data -> FullyConnected(8) -> relu -> FullyConnected(3) -> SoftmaxOutput
Symbol mlp() {
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("data");
  Symbol h = sym::make("FullyConnected", {x}, {{"num_hidden", "8"}}, "fc1");
  Symbol r = sym::make("Activation", {h}, {{"act_type", "relu"}}, "relu1");
  Symbol o = sym::make("FullyConnected", {r}, {{"num_hidden", "3"}}, "fc2");
  return sym::make("SoftmaxOutput", {o}, {}, "softmax");
}

std::map<std::string, NDArray> random_args(const Symbol& s, const std::map<std::string, Shape>& shapes) {
  auto inferred = s.infer_shape(shapes);
  std::map<std::string, NDArray> out;
  auto names = s.list_arguments();
  for (size_t i = 0; i < names.size(); ++i) out[names[i]] = nd::random_uniform(-1, 1, inferred.arg[i]);
  return out;
}

Executor bind_with(const Symbol& s, const std::map<std::string, NDArray>& args, const ExecutorOptions& options,
                   GradReq req = GradReq::Write) {
  std::vector<NDArray> a, g;
  for (const auto& name : s.list_arguments()) {
    a.push_back(args.at(name).copy());
    g.push_back(nd::zeros(args.at(name).shape(), cpu(), args.at(name).dtype()));
  }
  return Executor::bind(s, cpu(), a, g, {req}, {}, {}, options);
}

TEST(Executor, MatchesTheImperativePathAndAutograd) {
  Symbol net = mlp();
  auto args = random_args(net, {{"data", Shape{5, 4}}});
  args["softmax_label"] = nd::array<float>({0, 2, 1, 1, 0}, Shape{5});
  Executor ex = bind_with(net, args, {});
  ex.forward(true);
  ex.backward();

  // The same computation recorded by autograd.
  NDArray x = args["data"], w1 = args["fc1_weight"].copy(), b1 = args["fc1_bias"].copy();
  NDArray w2 = args["fc2_weight"].copy(), b2 = args["fc2_bias"].copy();
  for (auto* p : {&x, &w1, &b1, &w2, &b2}) p->attach_grad();
  NDArray out;
  {
    autograd::RecordScope rec;
    NDArray h = nd::invoke1("FullyConnected", {x, w1, b1}, {{"num_hidden", "8"}});
    NDArray r = nd::invoke1("Activation", {h}, {{"act_type", "relu"}});
    NDArray o = nd::invoke1("FullyConnected", {r, w2, b2}, {{"num_hidden", "3"}});
    out = nd::invoke1("SoftmaxOutput", {o, args["softmax_label"]});
  }
  out.backward();
  EXPECT_EQ(values(ex.outputs()[0]), values(out));
  auto grads = ex.grad_dict();
  EXPECT_EQ(values(grads["data"]), values(x.grad()));
  EXPECT_EQ(values(grads["fc1_weight"]), values(w1.grad()));
  EXPECT_EQ(values(grads["fc1_bias"]), values(b1.grad()));
  EXPECT_EQ(values(grads["fc2_weight"]), values(w2.grad()));
  EXPECT_EQ(values(grads["fc2_bias"]), values(b2.grad()));
}

// MXNet runs a backward with no forward before on what the arrays hold; Braid runs the training
// forward first, so the gradients are those of a forward and backward.
TEST(Executor, BackwardWithoutForwardRunsTheForwardFirst) {
  Symbol net = mlp();
  auto args = random_args(net, {{"data", Shape{5, 4}}});
  args["softmax_label"] = nd::array<float>({0, 2, 1, 1, 0}, Shape{5});
  Executor once = bind_with(net, args, {}), twice = bind_with(net, args, {});
  once.backward();
  twice.forward(true);
  twice.backward();
  for (const auto& name : net.list_arguments())
    EXPECT_EQ(values(once.grad_dict()[name]), values(twice.grad_dict()[name])) << name;
  EXPECT_EQ(values(once.outputs()[0]), values(twice.outputs()[0]));
}

TEST(Executor, ChannelsLastRegionsGiveTheChannelsFirstResults) {
  // conv -> tanh -> max pool -> conv -> relu runs on NHWC; the data enters through a transpose,
  // the weights are transposed to (F, kh, kw, C), and relu's output leaves through one for the FC.
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("data");
  Symbol c1 = sym::make("Convolution", {x}, {{"kernel", "(3, 3)"}, {"num_filter", "4"}}, "c1");
  Symbol a1 = sym::make("Activation", {c1}, {{"act_type", "tanh"}}, "a1");
  Symbol p1 = sym::make("Pooling", {a1}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}}, "p1");
  Symbol c2 = sym::make("Convolution", {p1}, {{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"pad", "(1, 1)"}}, "c2");
  Symbol a2 = sym::make("Activation", {c2}, {{"act_type", "relu"}}, "a2");
  Symbol f = sym::make("FullyConnected", {a2}, {{"num_hidden", "10"}}, "fc");
  Symbol net = Symbol::Group({sym::make("SoftmaxOutput", {f}, {}, "softmax"), p1});
  auto args = random_args(net, {{"data", Shape{4, 3, 14, 14}}});
  args["softmax_label"] = nd::array<float>({1, 3, 5, 7}, Shape{4});

  Executor first = bind_with(net, args, {.channels_last = false});
  Executor last = bind_with(net, args, {.channels_last = true});
  for (Executor* ex : {&first, &last}) {
    ex->forward(true);
    ex->backward();
  }
  EXPECT_EQ(first.plan_stats().channels_last_ops, 0);
  EXPECT_EQ(last.plan_stats().channels_last_ops, 3);
  // Four transposes: data in, two weights, relu's output out; p1, also an output, leaves by one.
  EXPECT_EQ(last.plan_stats().forward_kernels, first.plan_stats().forward_kernels + 5);
  EXPECT_NE(last.debug_str().find("transpose to NHWC"), std::string::npos);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(last.outputs()[i].shape(), first.outputs()[i].shape());
    expect_close(last.outputs()[i], first.outputs()[i], 1e-5, "output " + std::to_string(i));
  }
  for (const auto& [name, g] : first.grad_dict()) expect_close(last.grad_dict()[name], g, 1e-4, name);
}

TEST(Executor, PlanningReusesMemoryWithoutChangingResults) {
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("data");
  Symbol c1 = sym::make("Convolution", {x}, {{"kernel", "(3, 3)"}, {"num_filter", "4"}}, "c1");
  Symbol a1 = sym::make("Activation", {c1}, {{"act_type", "tanh"}}, "a1");
  Symbol p1 = sym::make("Pooling", {a1}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}}, "p1");
  Symbol c2 = sym::make("Convolution", {p1}, {{"kernel", "(3, 3)"}, {"num_filter", "6"}}, "c2");
  Symbol a2 = sym::make("Activation", {c2}, {{"act_type", "relu"}}, "a2");
  Symbol f = sym::make("FullyConnected", {a2}, {{"num_hidden", "10"}}, "fc");
  Symbol net = sym::make("SoftmaxOutput", {f}, {}, "softmax");
  auto args = random_args(net, {{"data", Shape{4, 1, 14, 14}}});
  args["softmax_label"] = nd::array<float>({1, 3, 5, 7}, Shape{4});

  Executor plain = bind_with(net, args, {.plan_memory = false, .fuse = false, .channels_last = false});
  Executor planned = bind_with(net, args, {.channels_last = false});
  for (Executor* ex : {&plain, &planned}) {
    ex->forward(true);
    ex->backward();
  }
  EXPECT_EQ(values(planned.outputs()[0]), values(plain.outputs()[0]));
  for (const auto& [name, g] : plain.grad_dict()) EXPECT_EQ(values(planned.grad_dict()[name]), values(g)) << name;
  EXPECT_LT(planned.plan_stats().planned_bytes, plain.plan_stats().planned_bytes);
  EXPECT_EQ(plain.plan_stats().planned_bytes, plain.plan_stats().unplanned_bytes);
  EXPECT_GE(planned.plan_stats().inplace_ops, 1);  // an activation's gradient over its output gradient
  EXPECT_EQ(planned.plan_stats().fused_relus, 1);  // a2 into c2
  EXPECT_EQ(planned.plan_stats().forward_kernels, 6);
  EXPECT_EQ(planned.plan_stats().backward_kernels, 6);

  // Inference: the tanh runs in place over c1's output (the relu is part of c2).
  Executor infer = Executor::bind(net, cpu(),
                                  [&] {
                                    std::vector<NDArray> a;
                                    for (const auto& n : net.list_arguments()) a.push_back(args[n]);
                                    return a;
                                  }(),
                                  {}, {}, {}, {}, {.channels_last = false});
  infer.forward(false);
  plain.forward(false);
  EXPECT_EQ(infer.plan_stats().inplace_ops, 1);
  EXPECT_EQ(infer.plan_stats().backward_kernels, 0);
  EXPECT_EQ(values(infer.outputs()[0]), values(plain.outputs()[0]));
}

// r1 folds into c1 and its gradient into the max pooling p1; r2 folds into c2, whose backward
// takes its gradient (an average pooling reads it); r3 stays, as c3's output is also returned.
// In float32 (oneDNN applies the relu as it stores the convolution) and float64, channels first
// and last, outputs and gradients equal the unfused plan's exactly.
TEST(Executor, FusesRelusIntoConvolutionsAndTheirGradientsIntoMaxPooling) {
  sym::Prefix fresh("");
  auto conv = [](const Symbol& in, const char* name) {
    return sym::make("Convolution", {in}, {{"kernel", "(3, 3)"}, {"num_filter", "4"}}, name);
  };
  auto relu = [](const Symbol& in, const char* name) {
    return sym::make("Activation", {in}, {{"act_type", "relu"}}, name);
  };
  Symbol x = Symbol::Variable("data");
  Symbol p1 = sym::make("Pooling", {relu(conv(x, "c1"), "r1")},
                        {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}}, "p1");
  Symbol p2 = sym::make("Pooling", {relu(conv(p1, "c2"), "r2")}, {{"kernel", "(2, 2)"}, {"pool_type", "avg"}}, "p2");
  Symbol c3 = conv(p2, "c3");
  Symbol net = Symbol::Group({sym::make("sum", {relu(c3, "r3") * c3}), c3});
  for (DType dtype : {DType::Float32, DType::Float64})
    for (bool channels_last : {false, true}) {
      auto args = random_args(net, {{"data", Shape{2, 3, 16, 16}}});
      for (auto& [name, a] : args) a = a.astype(dtype);
      Executor fused = bind_with(net, args, {.channels_last = channels_last});
      Executor unfused = bind_with(net, args, {.fuse = false, .channels_last = channels_last});
      const std::string what = cat(dtype_name(dtype), channels_last ? " NHWC" : " NCHW");
      EXPECT_EQ(fused.plan_stats().fused_relus, 2) << what;
      EXPECT_EQ(fused.plan_stats().forward_kernels, unfused.plan_stats().forward_kernels - 2) << what;
      for (Executor* ex : {&fused, &unfused}) {
        ex->forward(true);
        ex->backward();
      }
      auto doubles = [](const NDArray& a) { return a.astype(DType::Float64).to_vector<double>(); };
      for (size_t i = 0; i < 2; ++i) EXPECT_EQ(doubles(fused.outputs()[i]), doubles(unfused.outputs()[i])) << what;
      for (const auto& [name, g] : unfused.grad_dict()) {
        EXPECT_EQ(doubles(fused.grad_dict()[name]), doubles(g)) << what << " " << name;
        EXPECT_GT(doubles(nd::norm(g))[0], 0.0) << what << " " << name;  // gradients flow
      }
    }
}

TEST(Executor, FusesElementwiseChains) {
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("x");
  Symbol y = sym::make("exp", {sym::make("Activation", {(x * 0.5) + 1.0}, {{"act_type", "tanh"}})});
  Symbol z = sym::make("sum", {y});
  const Shape shape{3, 3457};  // not a multiple of the fused block
  auto args = random_args(z, {{"x", shape}});
  Executor fused = bind_with(z, args, {});
  Executor unfused = bind_with(z, args, {.plan_memory = true, .fuse = false});
  EXPECT_EQ(fused.plan_stats().fused_ops, 4);
  EXPECT_EQ(fused.plan_stats().forward_kernels, 2);
  EXPECT_EQ(unfused.plan_stats().forward_kernels, 5);
  for (Executor* ex : {&fused, &unfused}) {
    ex->forward(true);
    ex->backward();
  }
  EXPECT_FLOAT_EQ(fused.outputs()[0].scalar<float>(), unfused.outputs()[0].scalar<float>());
  auto g1 = values(fused.grad_dict()["x"]), g2 = values(unfused.grad_dict()["x"]);
  ASSERT_EQ(g1.size(), g2.size());
  for (size_t i = 0; i < g1.size(); ++i) ASSERT_FLOAT_EQ(g1[i], g2[i]) << i;
  // d/dx exp(tanh(x/2 + 1)) = exp(t) (1 - t^2) / 2
  auto xs = values(args["x"]);
  for (size_t i = 0; i < xs.size(); i += 997) {
    float t = std::tanh(xs[i] * 0.5f + 1.0f);
    EXPECT_NEAR(g1[i], std::exp(t) * (1 - t * t) * 0.5f, 1e-5f);
  }
}

TEST(Executor, ZeroGradientOperatorsWriteZerosAndPushNoKernel) {
  // round's gradient is zero by definition: no kernel runs for it (one would read a head gradient
  // nothing fills), so the gradient is exact zeros over a buffer that held NaN, fused or not, and
  // a gradient to add to is left as it was.
  Symbol x = Symbol::Variable("x");
  NDArray xv = nd::array<float>({0.4f, -1.6f, 2.5f}, Shape{3});
  for (Symbol y : {sym::make("round", {x}), sym::make("round", {x * 2.0})}) {
    NDArray written = nd::full(Shape{3}, std::nanf("")), added = nd::full(Shape{3}, 5.0f);
    Executor ex = Executor::bind(y, cpu(), {xv}, {written}, {GradReq::Write});
    Executor adding = Executor::bind(y, cpu(), {xv}, {added}, {GradReq::Add});
    for (Executor* e : {&ex, &adding}) {
      e->forward(true);
      e->backward({nd::full(Shape{3}, 1.0f)});
      EXPECT_EQ(e->plan_stats().backward_kernels, 0);
    }
    EXPECT_EQ(values(written), (std::vector<float>{0, 0, 0}));
    EXPECT_EQ(values(added), (std::vector<float>{5, 5, 5}));
  }
}

TEST(Executor, GradReqAddAccumulatesAndSharedInputsSum) {
  Symbol x = Symbol::Variable("x");
  Symbol y = sym::make("sum", {x * x + x});  // x used twice: gradients of both uses add up
  NDArray xv = nd::array<float>({1, 2, 3}, Shape{3});
  NDArray g = nd::zeros(Shape{3});
  Executor ex = Executor::bind(y, cpu(), {xv}, {g}, {GradReq::Add});
  for (int i = 0; i < 2; ++i) {
    ex.forward(true);
    ex.backward();
  }
  EXPECT_EQ(values(g), (std::vector<float>{6, 10, 14}));  // 2 * (2x + 1)
  EXPECT_EQ(ex.outputs()[0].scalar<float>(), 20.0f);
}

TEST(Executor, AuxStatesUpdateInTrainingOnly) {
  Symbol bn = sym::make("BatchNorm", {Symbol::Variable("x")}, {{"momentum", "0.5"}}, "bn");
  Executor ex = Executor::simple_bind(bn, cpu(), {{"x", Shape{4, 2}}}, GradReq::Null);
  ex.arg_dict()["bn_gamma"].fill(1);
  ex.aux_dict()["bn_moving_var"].fill(1);
  ex.forward(false, {{"x", nd::array<float>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{4, 2})}});
  EXPECT_EQ(values(ex.aux_dict()["bn_moving_mean"]), (std::vector<float>{0, 0}));
  ex.forward(true);
  EXPECT_EQ(values(ex.aux_dict()["bn_moving_mean"]), (std::vector<float>{2, 2.5}));  // 0.5 * 0 + 0.5 * mean
  ex.backward();  // no gradient wanted anywhere: nothing to do, as in MXNet
}

TEST(Executor, ContextGroupsPlaceNodesAndCopyBetweenThem) {
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("x"), h, out;
  {
    sym::AttrScope s1(op::AttrMap{{"ctx_group", "stage1"}});
    h = sym::make("FullyConnected", {x}, {{"num_hidden", "4"}}, "fc1");
  }
  {
    sym::AttrScope s2(op::AttrMap{{"ctx_group", "stage2"}});
    out = sym::make("FullyConnected", {sym::make("Activation", {h}, {{"act_type", "relu"}})}, {{"num_hidden", "2"}},
                    "fc2");
  }
  auto args = random_args(out, {{"x", Shape{3, 5}}});
  Executor one = bind_with(out, args, {});
  std::vector<NDArray> a, g;
  for (const auto& n : out.list_arguments()) {
    a.push_back(args[n].copy());
    g.push_back(nd::zeros(args[n].shape()));
  }
  Executor two = Executor::bind(out, cpu(0), a, g, {GradReq::Write}, {}, {{"stage1", cpu(0)}, {"stage2", cpu(1)}});
  for (Executor* ex : {&one, &two}) {
    ex->forward(true);
    ex->backward(std::vector<NDArray>{nd::ones(Shape{3, 2})});
  }
  EXPECT_EQ(two.outputs()[0].ctx(), cpu(1));
  EXPECT_EQ(values(two.outputs()[0]), values(one.outputs()[0]));
  EXPECT_EQ(values(two.grad_dict()["x"]), values(one.grad_dict()["x"]));
  // Copies to cpu(1) of fc1's output and of fc2's weight and bias, bound on cpu(0).
  EXPECT_EQ(two.plan_stats().forward_kernels, one.plan_stats().forward_kernels + 3);
  // simple_bind puts each variable on its group's context: then only fc1's output moves.
  Executor placed = Executor::simple_bind(out, cpu(0), {{"x", Shape{3, 5}}}, GradReq::Write, {}, {},
                                          {{"stage1", cpu(0)}, {"stage2", cpu(1)}});
  EXPECT_EQ(placed.arg_dict()["fc2_weight"].ctx(), cpu(1));
  EXPECT_EQ(placed.arg_dict()["fc1_weight"].ctx(), cpu(0));
  EXPECT_EQ(placed.plan_stats().forward_kernels, one.plan_stats().forward_kernels + 1);
}

TEST(Executor, ReshapeKeepsParameters) {
  Symbol net = mlp();
  Executor ex = Executor::simple_bind(net, cpu(), {{"data", Shape{5, 4}}});
  Executor big = ex.reshape({{"data", Shape{7, 4}}, {"softmax_label", Shape{7}}}, false, true);
  EXPECT_TRUE(big.arg_dict()["fc1_weight"].same_as(ex.arg_dict()["fc1_weight"]));
  EXPECT_EQ(big.arg_dict()["data"].shape(), (Shape{7, 4}));
  EXPECT_EQ(big.outputs()[0].shape(), (Shape{7, 3}));
  EXPECT_THROW(ex.reshape({{"data", Shape{7, 4}}, {"softmax_label", Shape{7}}}), Error);  // grows
  Executor small = ex.reshape({{"data", Shape{2, 4}}, {"softmax_label", Shape{2}}});
  EXPECT_EQ(small.outputs()[0].shape(), (Shape{2, 3}));
}

TEST(Executor, AReshapedExecutorSharesTheMemoryOfItsSource) {
  Symbol fc = sym::make("FullyConnected", {Symbol::Variable("x")}, {{"num_hidden", "4"}}, "fc");
  Executor ex = Executor::simple_bind(fc, cpu(), {{"x", Shape{5, 4}}}, GradReq::Null);
  ex.arg_dict()["x"].fill(1.0f);
  ex.arg_dict()["fc_weight"].fill(1.0f);
  ex.arg_dict()["fc_bias"].fill(0.0f);
  Executor small = ex.reshape({{"x", Shape{3, 4}}});
  // The smaller input is the start of the bigger one, and the output is written into the source's.
  ex.arg_dict()["x"].fill(2.0f);
  small.forward(false);
  EXPECT_EQ(small.outputs()[0].to_vector<float>(), std::vector<float>(12, 8.0f));
  std::vector<float> source = ex.outputs()[0].to_vector<float>();
  EXPECT_EQ(std::vector<float>(source.begin(), source.begin() + 12), std::vector<float>(12, 8.0f));
  // Growing allocates: the bigger executor's input is its own.
  Executor big = ex.reshape({{"x", Shape{6, 4}}}, false, true);
  big.arg_dict()["x"].fill(0.0f);
  EXPECT_EQ(ex.arg_dict()["x"].to_vector<float>(), std::vector<float>(20, 2.0f));
  EXPECT_TRUE(big.arg_dict()["fc_weight"].same_as(ex.arg_dict()["fc_weight"]));
}

TEST(Executor, BadBindsAreClearErrors) {
  Symbol net = mlp();
  EXPECT_THROW(Executor::bind(net, cpu(), {nd::zeros(Shape{2, 4})}), Error);  // too few arguments
  Executor ex = Executor::simple_bind(net, cpu(), {{"data", Shape{5, 4}}});
  EXPECT_THROW(ex.forward(false, {{"data", nd::zeros(Shape{6, 4})}}), Error);
  EXPECT_THROW(ex.forward(false, {{"dat", nd::zeros(Shape{5, 4})}}), Error);
  Symbol shuffled = sym::make("_shuffle", {Symbol::Variable("x")});
  EXPECT_THROW(Executor::simple_bind(shuffled, cpu(), {{"x", Shape{2, 3}}}), Error);  // no gradient through _shuffle
  EXPECT_NO_THROW(Executor::simple_bind(shuffled, cpu(), {{"x", Shape{2, 3}}}, GradReq::Null));
  EXPECT_THROW(Executor::simple_bind(net, cpu(), {{"data", Shape{5, 4}}, {"fc1_weight", Shape{8, 5}}}), Error);
}

}  // namespace
}  // namespace braid
