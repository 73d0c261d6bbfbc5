#include "braid/gluon/block.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/sequential.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"

namespace braid::gluon {
namespace {

namespace fs = std::filesystem;
using nn::Dense;
using nn::HybridSequential;

/// A user-defined block with named children, as in MXNet tutorials (self.hidden, self.output).
class Mlp : public Block {
 public:
  Mlp() : Block("mlp") {
    auto scope = name_scope();
    hidden_ = register_child(std::make_shared<Dense>(8, "relu"), "hidden");
    output_ = register_child(std::make_shared<Dense>(3), "output");
  }
  std::vector<NDArray> forward(const std::vector<NDArray>& in) override {
    return {(*output_)((*hidden_)(one_input(in)))};
  }

 private:
  std::shared_ptr<Dense> hidden_, output_;
};

fs::path temp_path(const std::string& name) { return fs::temp_directory_path() / ("braid_gluon_" + name); }

TEST(Block, NamesFollowMxnet) {
  auto a = std::make_shared<Dense>(4), b = std::make_shared<Dense>(4);
  // Global counters per hint: the second dense has the next number.
  const int na = std::stoi(a->name().substr(5)), nb = std::stoi(b->name().substr(5));
  EXPECT_EQ(nb, na + 1);
  EXPECT_EQ(a->weight()->name(), a->prefix() + "weight");

  HybridSequential net;
  {
    auto scope = net.name_scope();
    net.add(std::make_shared<Dense>(4));  // one call each: argument evaluation order is unspecified
    net.add(std::make_shared<Dense>(2));
  }
  // Inside a scope: the parent's prefix plus the parent's own counter.
  EXPECT_EQ(net[0]->prefix(), net.prefix() + "dense0_");
  EXPECT_EQ(net[1]->prefix(), net.prefix() + "dense1_");
  EXPECT_EQ(net.collect_params().keys(),
            (std::vector<std::string>{net.prefix() + "dense0_weight", net.prefix() + "dense0_bias",
                                      net.prefix() + "dense1_weight", net.prefix() + "dense1_bias"}));
  EXPECT_EQ(net.collect_params(".*weight").size(), 2u);
  EXPECT_EQ(net.collect_params(net.prefix() + "dense1_").size(), 2u);
  auto structural = net.collect_params_with_prefix();
  ASSERT_EQ(structural.size(), 4u);
  EXPECT_EQ(structural[0].first, "0.weight");
  EXPECT_EQ(structural[3].first, "1.bias");
  Dense named(3, nn::DenseOptions{.prefix = "fc_"});
  EXPECT_EQ(named.weight()->name(), "fc_weight");
}

TEST(Block, DeferredInitCompletesShapesAtFirstForward) {
  Dense d(5, "relu");
  d.initialize();
  EXPECT_TRUE(d.weight()->deferred());
  EXPECT_THROW(d.weight()->data(), Error);
  NDArray x = nd::ones(Shape({2, 3, 4}));  // flattened to 12 features
  NDArray y = d(x);
  EXPECT_EQ(y.shape(), Shape({2, 5}));
  EXPECT_EQ(d.weight()->shape(), Shape({5, 12}));
  EXPECT_FALSE(d.weight()->deferred());
  EXPECT_EQ(d.bias()->data().to_vector<float>(), std::vector<float>(5, 0.0f));  // bias_initializer zeros
}

TEST(Block, DenseMatchesFullyConnectedAndActivation) {
  nd::seed(3);
  Dense d(4, nn::DenseOptions{.activation = "tanh", .in_units = 3});
  d.initialize(std::make_shared<init::Normal>(0.5));
  NDArray x = nd::random_normal(0, 1, Shape({2, 3}));
  NDArray expect = nd::invoke1(
      "Activation", {nd::invoke1("FullyConnected", {x, d.weight()->data(), d.bias()->data()}, {{"num_hidden", "4"}})},
      {{"act_type", "tanh"}});
  EXPECT_EQ(d(x).to_vector<float>(), expect.to_vector<float>());
  EXPECT_EQ(d.repr(), "Dense(3 -> 4, Activation(tanh))");
}

TEST(Block, AutogradThroughBlocksReachesParameters) {
  Dense d(1, nn::DenseOptions{.use_bias = true, .in_units = 2});
  d.initialize();
  d.weight()->set_data(nd::array({2, -1}, Shape({1, 2})));
  NDArray x = nd::array({1, 2, 3, 4}, Shape({2, 2}));
  NDArray loss;
  {
    autograd::RecordScope rec;
    loss = nd::sum(d(x));
  }
  loss.backward();
  // d/dW sum(x W^T + b) = column sums of x; d/db = batch size.
  EXPECT_EQ(d.weight()->grad().to_vector<float>(), (std::vector<float>{4, 6}));
  EXPECT_EQ(d.bias()->grad().to_vector<float>(), (std::vector<float>{2}));
  d.collect_params().zero_grad();
  EXPECT_EQ(d.weight()->grad().to_vector<float>(), (std::vector<float>{0, 0}));
}

TEST(Block, SaveAndLoadParametersUseStructuralNames) {
  nd::seed(11);
  Mlp a;
  a.initialize(std::make_shared<init::Xavier>());
  NDArray x = nd::random_uniform(-1, 1, Shape({4, 6}));
  NDArray ya = a(x);
  const auto path = temp_path("mlp.params");
  a.save_parameters(path);
  io::NamedArrays file = io::load(path);
  EXPECT_EQ(file.names, (std::vector<std::string>{"hidden.weight", "hidden.bias", "output.weight", "output.bias"}));

  Mlp b;  // other full names (new prefixes), same structure
  b.load_parameters(path);
  EXPECT_EQ(b(x).to_vector<float>(), ya.to_vector<float>());
  fs::remove(path);
}

TEST(Block, LoadParametersChecksMissingAndExtraNames) {
  const auto path = temp_path("partial.params");
  io::save(path, std::vector<std::pair<std::string, NDArray>>{{"hidden.weight", nd::ones(Shape({8, 6}))},
                                                              {"unrelated.weight", nd::ones(Shape({1}))}});
  Mlp m;
  try {
    m.load_parameters(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'hidden.bias' is missing"), std::string::npos) << e.what();
  }
  try {
    m.load_parameters(path, {cpu()}, /*allow_missing=*/true);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'unrelated.weight'"), std::string::npos) << e.what();
  }
  m.load_parameters(path, {cpu()}, true, /*ignore_extra=*/true);
  EXPECT_EQ(m.collect_params_with_prefix()[0].second->data().to_vector<float>(), std::vector<float>(48, 1.0f));
  fs::remove(path);
}

TEST(Block, LoadParametersReadsFullNamesOfSaveParams) {
  Dense a(2, nn::DenseOptions{.in_units = 3});
  a.initialize();
  const auto path = temp_path("fullnames.params");
  a.collect_params().save(path, a.prefix());  // names "weight", "bias" as ParameterDict.save strips
  Dense b(2, nn::DenseOptions{.in_units = 3});
  b.load_parameters(path);
  EXPECT_EQ(b.weight()->data().to_vector<float>(), a.weight()->data().to_vector<float>());
  fs::remove(path);
}

TEST(Block, LoadRejectsWrongShapeAndDtype) {
  const auto path = temp_path("wrong.params");
  Dense d(2, nn::DenseOptions{.use_bias = false, .in_units = 3});
  io::save(path, std::vector<std::pair<std::string, NDArray>>{{"weight", nd::ones(Shape({3, 2}))}});
  EXPECT_THROW(d.load_parameters(path), Error);
  io::save(path,
           std::vector<std::pair<std::string, NDArray>>{{"weight", nd::ones(Shape({2, 3}), cpu(), DType::Float64)}});
  EXPECT_THROW(d.load_parameters(path), Error);
  d.load_parameters(path, {cpu()}, false, false, /*cast_dtype=*/true);
  EXPECT_EQ(d.weight()->dtype(), DType::Float32);
  fs::remove(path);
}

TEST(Block, ParametersOnSeveralContexts) {
  Dense d(2, nn::DenseOptions{.in_units = 2});
  d.initialize(nullptr, {cpu(0), cpu(1)});
  auto w = d.weight();
  EXPECT_EQ(w->list_ctx(), (std::vector<Context>{cpu(0), cpu(1)}));
  EXPECT_EQ(w->data(cpu(0)).to_vector<float>(), w->data(cpu(1)).to_vector<float>());
  EXPECT_THROW(w->data(), Error);  // ambiguous
  EXPECT_THROW(w->data(cpu(2)), Error);
  EXPECT_EQ(d(nd::ones(Shape({1, 2}), cpu(1))).ctx(), cpu(1));
}

TEST(Block, UninitializedParameterErrorSaysWhatToDo) {
  Dense d(2, nn::DenseOptions{.in_units = 2});
  try {
    d(nd::ones(Shape({1, 2})));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("initialize"), std::string::npos) << e.what();
  }
}

TEST(Block, ReprShowsTheTree) {
  HybridSequential net;
  net.add(std::make_shared<Dense>(4, "relu"), std::make_shared<Dense>(2));
  EXPECT_EQ(net.repr(),
            "HybridSequential(\n  (0): Dense(None -> 4, Activation(relu))\n  (1): Dense(None -> 2, linear)\n)");
}

TEST(Block, ForwardHooksFireForChildrenOfAContainerUntilRemoved) {
  HybridSequential net;
  auto first = std::make_shared<Dense>(4, "relu"), second = std::make_shared<Dense>(2);
  net.add(first, second);
  net.initialize();
  std::vector<std::string> calls;
  const int pre = second->add_forward_pre_hook(
      [&](Block& b, const std::vector<NDArray>& in) { calls.push_back(cat("pre ", b.prefix(), " ", in[0].shape())); });
  const int post =
      second->add_forward_hook([&](Block& b, const std::vector<NDArray>&, const std::vector<NDArray>& out) {
        calls.push_back(cat("post ", b.prefix(), " ", out[0].shape()));
      });
  int once = 0;
  once = first->add_forward_hook([&](Block& b, const std::vector<NDArray>&, const std::vector<NDArray>&) {
    calls.push_back("once");
    b.remove_forward_hook(once);  // a hook may remove itself while hooks are called
  });
  net(nd::ones(Shape{5, 3}));
  const std::string p = second->prefix();
  EXPECT_EQ(calls, (std::vector<std::string>{"once", "pre " + p + " (5, 4)", "post " + p + " (5, 2)"}));
  second->remove_forward_hook(pre);
  second->remove_forward_hook(post);
  net(nd::ones(Shape{5, 3}));
  EXPECT_EQ(calls.size(), 3u);
}

TEST(Init, DefaultsByName) {
  init::Uniform u(0.5);
  NDArray b = nd::ones(Shape({3})), g = nd::zeros(Shape({3})), rv = nd::zeros(Shape({3}));
  u("dense0_bias", b);
  u("batchnorm0_gamma", g);
  u("batchnorm0_running_var", rv);
  EXPECT_EQ(b.to_vector<float>(), std::vector<float>(3, 0.0f));
  EXPECT_EQ(g.to_vector<float>(), std::vector<float>(3, 1.0f));
  EXPECT_EQ(rv.to_vector<float>(), std::vector<float>(3, 1.0f));
  NDArray other = nd::zeros(Shape({3}));
  EXPECT_THROW(u("mystery", other), Error);
}

TEST(Init, XavierScaleFollowsFans) {
  nd::seed(1);
  NDArray w = nd::zeros(Shape({64, 32, 3, 3}));
  init::Xavier("uniform", "avg", 3.0).init_weight("w", w);
  const double scale = std::sqrt(3.0 / ((32 * 9 + 64 * 9) / 2.0));
  auto v = w.to_vector<float>();
  double lo = 0, hi = 0, sumsq = 0;
  for (float f : v) {
    lo = std::min(lo, double(f));
    hi = std::max(hi, double(f));
    sumsq += double(f) * f;
  }
  EXPECT_LE(hi, scale);
  EXPECT_GE(lo, -scale);
  EXPECT_GT(hi, 0.95 * scale);  // 18432 draws reach close to the bound
  EXPECT_NEAR(std::sqrt(sumsq / v.size()), scale / std::sqrt(3.0), 0.02 * scale);  // sd of U(-s, s)
  NDArray gauss = nd::zeros(Shape({200, 100}));
  init::MSRAPrelu("in", 0.0).init_weight("w", gauss);  // sd sqrt(2 / fan_in)
  double ss = 0;
  for (float f : gauss.to_vector<float>()) ss += double(f) * f;
  EXPECT_NEAR(std::sqrt(ss / 20000), std::sqrt(2.0 / 100), 0.01);
  NDArray vec = nd::zeros(Shape({3}));
  EXPECT_THROW(init::Xavier().init_weight("v", vec), Error);
}

TEST(Init, SameSeedSameParameters) {
  auto make = [] {
    nd::seed(42);
    Dense d(3, nn::DenseOptions{.in_units = 4});
    d.initialize(std::make_shared<init::Xavier>());
    return d.weight()->data().to_vector<float>();
  };
  EXPECT_EQ(make(), make());
}

}  // namespace
}  // namespace braid::gluon

TEST(ShareParameters, TheNextBlockAndItsChildrenTakeTheSharedParameters) {
  auto dense0 = std::make_shared<braid::gluon::nn::Dense>(4, braid::gluon::nn::DenseOptions{.in_units = 3});
  std::shared_ptr<braid::gluon::nn::Dense> dense1;
  {
    braid::gluon::ShareParameters share(dense0->collect_params());
    dense1 = std::make_shared<braid::gluon::nn::Dense>(4, braid::gluon::nn::DenseOptions{.in_units = 3});
  }
  EXPECT_EQ(dense1->weight(), dense0->weight());
  EXPECT_EQ(dense1->bias(), dense0->bias());
  EXPECT_NE(dense1->prefix(), dense0->prefix());
  auto dense2 = std::make_shared<braid::gluon::nn::Dense>(4, braid::gluon::nn::DenseOptions{.in_units = 3});
  EXPECT_NE(dense2->weight(), dense0->weight());  // the scope served one block only

  // A container shared whole: its children (created in its name scope) find theirs by name.
  auto make_net = [] {
    auto net = std::make_shared<braid::gluon::nn::Sequential>();
    auto scope = net->name_scope();
    net->add(std::make_shared<braid::gluon::nn::Dense>(2, braid::gluon::nn::DenseOptions{.in_units = 3}));
    return net;
  };
  auto first = make_net();
  std::shared_ptr<braid::gluon::nn::Sequential> second;
  {
    braid::gluon::ShareParameters share(first->collect_params());
    second = make_net();
  }
  EXPECT_EQ(second->collect_params().keys(), first->collect_params().keys());
  EXPECT_EQ(std::dynamic_pointer_cast<braid::gluon::nn::Dense>((*second)[0])->weight(),
            std::dynamic_pointer_cast<braid::gluon::nn::Dense>((*first)[0])->weight());
}
