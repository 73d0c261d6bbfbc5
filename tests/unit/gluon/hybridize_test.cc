// hybridize: the traced graph gives the imperative results, forward and backward, and training
// through it goes as it goes imperatively; export writes MXNet's files and SymbolBlock reads
// them back (and MXNet's own export).
#include <gtest/gtest.h>

#include <filesystem>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/nn.h"
#include "braid/gluon/symbol_block.h"
#include "braid/gluon/trainer.h"
#include "braid/io/file.h"
#include "braid/io/idx.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"
#include "braid/symbol/compose.h"

namespace braid::gluon {
namespace {

const std::string kDir = BRAID_FIXTURES_DIR;

std::shared_ptr<nn::HybridSequential> lenet(const std::string& prefix) {
  auto net = std::make_shared<nn::HybridSequential>(prefix);
  auto scope = net->name_scope();
  net->add(std::make_shared<nn::Conv2D>(6, 5, nn::ConvOptions{.activation = "relu"}));
  net->add(std::make_shared<nn::MaxPool2D>(2));
  net->add(std::make_shared<nn::Conv2D>(16, 3, nn::ConvOptions{.activation = "tanh"}));
  net->add(std::make_shared<nn::BatchNorm>());
  net->add(std::make_shared<nn::Dense>(32, "relu"));
  net->add(std::make_shared<nn::Dense>(10));
  return net;
}

std::vector<float> float_values(const NDArray& a) { return a.to_vector<float>(); }

/// Trains `net` for `steps` SGD steps on fixed random data; returns the losses.
std::vector<float> train(nn::HybridSequential& net, int steps) {
  loss::SoftmaxCrossEntropyLoss loss_fn;
  Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}});
  std::vector<float> losses;
  for (int s = 0; s < steps; ++s) {
    NDArray x = nd::random_uniform(0, 1, Shape{8, 1, 12, 12});
    NDArray y = nd::array<float>({0, 1, 2, 3, 4, 5, 6, 7}, Shape{8});
    NDArray loss;
    {
      autograd::RecordScope rec;
      loss = loss_fn(net(x), y);
    }
    loss.backward();
    trainer.step(8);
    losses.push_back(nd::mean(loss).scalar<float>());
  }
  return losses;
}

TEST(Hybridize, SameResultsAndGradientsAsImperative) {
  auto a = lenet("a_"), b = lenet("b_");
  a->initialize();
  b->initialize();
  NDArray x = nd::random_uniform(0, 1, Shape{4, 1, 12, 12});
  (*a)(x).wait_to_read();  // finish deferred init, then give b the same values
  (*b)(x).wait_to_read();
  auto pa = a->collect_params_with_prefix(), pb = b->collect_params_with_prefix();
  for (size_t i = 0; i < pa.size(); ++i) pb[i].second->set_data(pa[i].second->data());
  b->hybridize();
  for (int call = 0; call < 3; ++call) {  // the first hybridized call traces, later ones run the graph
    NDArray ya, yb;
    {
      autograd::RecordScope rec;
      ya = nd::sum((*a)(x) * (*a)(x));
      yb = nd::sum((*b)(x) * (*b)(x));
    }
    ya.backward();
    yb.backward();
    EXPECT_EQ(ya.scalar<float>(), yb.scalar<float>()) << call;
    for (size_t i = 0; i < pa.size(); ++i) {
      if (pa[i].second->grad_req() == GradReq::Null) continue;
      EXPECT_EQ(float_values(pa[i].second->grad()), float_values(pb[i].second->grad()))
          << pa[i].first << " call " << call;
    }
  }
  // Inference mode, and BatchNorm's running statistics updated alike in training.
  EXPECT_EQ(float_values((*a)(x)), float_values((*b)(x)));
  EXPECT_EQ(float_values(a->collect_params()["a_batchnorm0_running_mean"]->data()),
            float_values(b->collect_params()["b_batchnorm0_running_mean"]->data()));
  Symbol g = b->traced_symbol();
  EXPECT_EQ(g.list_arguments().front(), "data");
  EXPECT_EQ(g.list_auxiliary_states(),
            (std::vector<std::string>{"b_batchnorm0_running_mean", "b_batchnorm0_running_var"}));
}

TEST(Hybridize, TrainingMatchesImperativeAndStaticAlloc) {
  auto run = [](bool hybrid, bool static_alloc) {
    nd::seed(7);  // same initial weights and data for every variant
    auto net = lenet("t_");
    net->initialize();
    (*net)(nd::zeros(Shape{1, 1, 12, 12})).wait_to_read();
    if (hybrid) net->hybridize(true, static_alloc);
    return train(*net, 5);
  };
  auto imperative = run(false, false), hybrid = run(true, false), fixed = run(true, true);
  EXPECT_EQ(imperative, hybrid);
  EXPECT_EQ(imperative, fixed);
  EXPECT_LT(imperative.back(), imperative.front());
}

TEST(Hybridize, ExportAndImportRoundTrip) {
  auto dir = std::filesystem::temp_directory_path() / ("braid_export_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto net = lenet("exp_");
  net->initialize();
  NDArray x = nd::random_uniform(0, 1, Shape{3, 1, 12, 12});
  EXPECT_THROW(net->export_model((dir / "m").string()), Error);  // not hybridized and run yet
  net->hybridize();
  NDArray y = (*net)(x);
  net->export_model((dir / "m").string(), 7);
  ASSERT_TRUE(std::filesystem::exists(dir / "m-symbol.json"));
  ASSERT_TRUE(std::filesystem::exists(dir / "m-0007.params"));
  auto file = io::load((dir / "m-0007.params").string());
  EXPECT_NE(std::find(file.names.begin(), file.names.end(), "arg:exp_conv0_weight"), file.names.end());
  EXPECT_NE(std::find(file.names.begin(), file.names.end(), "aux:exp_batchnorm0_running_var"), file.names.end());
  Symbol s = Symbol::load((dir / "m-symbol.json").string());
  EXPECT_EQ(s.get_internals()[1].name(), "exp_conv0_weight");
  EXPECT_EQ(s.get_internals()["exp_conv0_fwd_output"].attr("kernel"), "(5, 5)");

  auto back = SymbolBlock::imports((dir / "m-symbol.json").string(), {"data"}, (dir / "m-0007.params").string());
  EXPECT_EQ(float_values((*back)(x)), float_values(y));  // bit-identical
  // Re-exported by the imported block: the same bytes.
  back->hybridize();
  (*back)(x).wait_to_read();
  auto again = io::load((dir / "m-0007.params").string());
  EXPECT_EQ(io::save_to_bytes(again), io::read_file((dir / "m-0007.params").string(), io::max_array_file_bytes()));
  std::filesystem::remove_all(dir);
}

TEST(SymbolBlockTest, MxnetExportedCnnClassifiesMnist) {
  auto net = SymbolBlock::imports(kDir + "/mnist-symbol.json", {"data"}, kDir + "/mnist-0035.params");
  NDArray images = io::load_idx_images(kDir + "/mnist-t10k-images-idx3-ubyte.gz");
  NDArray labels = io::load_idx_labels(kDir + "/mnist-t10k-labels-idx1-ubyte.gz");
  double correct = 0;
  for (int64_t b = 0; b < 10000; b += 500) {
    NDArray pred = nd::argmax((*net)(images.slice(b, b + 500)), 1);
    correct += nd::sum(pred == labels.slice(b, b + 500)).scalar<float>();
  }
  EXPECT_NEAR(correct / 10000, 0.9903, 1e-9);  // what an independent PyTorch implementation gives
}

TEST(SymbolBlockTest, TrainsThroughAutograd) {
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("data");
  Symbol fc = sym::make("FullyConnected", {x}, {{"num_hidden", "3"}}, "fc");
  SymbolBlock block(fc, {"data"});
  block.initialize();
  NDArray in = nd::random_uniform(-1, 1, Shape{4, 5});
  NDArray y;
  {
    autograd::RecordScope rec;
    y = nd::sum(block(in));
  }
  y.backward();
  EXPECT_EQ(block.collect_params()["fc_weight"]->shape(), (Shape{3, 5}));  // inferred at the first call
  auto gw = float_values(block.collect_params()["fc_weight"]->grad());
  auto xs = float_values(nd::sum(in, {0}));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) EXPECT_FLOAT_EQ(gw[r * 5 + c], xs[c]);  // d sum(Wx+b) / dW = sum of x
  EXPECT_EQ(float_values(block.collect_params()["fc_bias"]->grad()), (std::vector<float>{4, 4, 4}));
}

TEST(SymbolBlockTest, ClearErrors) {
  EXPECT_THROW(SymbolBlock::imports(kDir + "/mnist-symbol.json", {"input"}), Error);  // no such variable
  EXPECT_THROW(
      SymbolBlock::imports(kDir + "/mnist-symbol.json", {"data"}, kDir + "/sagemaker-linreg-model-0000.params"),
      Error);  // parameters of another model
  auto net = SymbolBlock::imports(kDir + "/mnist-symbol.json", {"data"}, kDir + "/mnist-0035.params");
  EXPECT_THROW((*net)(nd::zeros(Shape{2, 1, 20, 20})), Error);  // wrong image size
}

}  // namespace
}  // namespace braid::gluon
