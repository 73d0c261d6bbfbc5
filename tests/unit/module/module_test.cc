// Module against a hand-written Executor + optimizer loop, on a problem it must learn, through
// checkpoints, and on an MXNet 1.1 checkpoint.
#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>
#include <sstream>

#include "braid/base/error.h"
#include "braid/io/ndarray_iter.h"
#include "braid/module/callback.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/random.h"
#include "braid/symbol/compose.h"

namespace braid::mod {
namespace {

std::vector<float> values(const NDArray& a) { return a.to_vector<float>(); }

Symbol mlp() {
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("data");
  Symbol h = sym::make("Activation", {sym::make("FullyConnected", {x}, {{"num_hidden", "16"}}, "fc1")},
                       {{"act_type", "relu"}}, "relu1");
  return sym::make("SoftmaxOutput", {sym::make("FullyConnected", {h}, {{"num_hidden", "3"}}, "fc2")}, {}, "softmax");
}

/// 300 points in three separated clusters of 4-d space; label = cluster.
std::pair<NDArray, NDArray> blobs() {
  nd::seed(3);
  std::vector<float> x, y;
  auto noise = nd::random_normal(0, 0.3, Shape{300, 4}).to_vector<float>();
  for (int i = 0; i < 300; ++i) {
    int c = i % 3;
    for (int d = 0; d < 4; ++d) x.push_back((d == c ? 2.0f : 0.0f) + noise[static_cast<size_t>(i * 4 + d)]);
    y.push_back(static_cast<float>(c));
  }
  return {nd::array<float>(x, Shape{300, 4}), nd::array<float>(y, Shape{300})};
}

TEST(Module, FitLearnsAndScoreAgreesWithPredict) {
  auto [x, y] = blobs();
  io::NDArrayIter train(x, y, 32, true);
  io::NDArrayIter val(x, y, 64);  // 300 = 4 * 64 + 44: the last batch is padded
  Module m(mlp());
  std::ostringstream speed;
  FitOptions o;
  o.eval_data = &val;
  o.optimizer_params = {{"learning_rate", "0.5"}, {"momentum", "0.9"}};
  o.num_epoch = 8;
  o.batch_end_callback = {Speedometer(32, 5, true, speed)};
  m.fit(train, o);
  auto metric = metric::create("acc");
  double acc = m.score(val, *metric);
  EXPECT_GT(acc, 0.95);
  auto pred = m.predict(val);
  ASSERT_EQ(pred[0].shape(), (Shape{300, 3}));
  auto p = values(pred[0]), labels = values(y);
  double correct = 0;
  for (int i = 0; i < 300; ++i) {
    int best = 0;
    for (int c = 1; c < 3; ++c)
      if (p[static_cast<size_t>(i * 3 + c)] > p[static_cast<size_t>(i * 3 + best)]) best = c;
    correct += best == static_cast<int>(labels[static_cast<size_t>(i)]);
  }
  EXPECT_DOUBLE_EQ(acc, correct / 300);
  // Speedometer: every 5 of the 10 batches per epoch, MXNet's format.
  EXPECT_NE(speed.str().find("Epoch[0] Batch [0-5]\tSpeed: "), std::string::npos) << speed.str();
  EXPECT_NE(speed.str().find(" samples/sec\taccuracy="), std::string::npos) << speed.str();
  EXPECT_NE(speed.str().find("Epoch[7] Batch [5-10]"), std::string::npos) << speed.str();
}

TEST(Module, OneStepEqualsExecutorAndOptimizerByHand) {
  auto [x, y] = blobs();
  io::NDArrayIter it(x, y, 10);
  auto batch = *it.next();
  Module m(mlp());
  m.bind(it.provide_data(), it.provide_label());
  m.init_params();
  auto [arg0, aux0] = m.get_params();
  m.init_optimizer("local", "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}});
  m.forward(batch);
  m.backward();
  m.update();

  Executor ex =
      Executor::simple_bind(mlp(), cpu(), {{"data", Shape{10, 4}}}, GradReq::Write, {}, {"data", "softmax_label"});
  for (auto& [n, a] : arg0) a.copyto(ex.arg_dict()[n]);
  ex.forward(true, {{"data", batch.data[0]}, {"softmax_label", batch.label[0]}});
  ex.backward();
  auto opt = optim::create("sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}, {"rescale_grad", "0.1"}});
  auto names = mlp().list_arguments();
  int index = 0;
  for (const auto& n : names) {
    if (n == "data" || n == "softmax_label") continue;
    opt->update(index++, ex.arg_dict()[n], ex.grad_dict()[n]);
  }
  auto [arg1, aux1] = m.get_params();
  for (const auto& [n, a] : arg1) EXPECT_EQ(values(a), values(ex.arg_dict()[n])) << n;
}

TEST(Module, CheckpointsRoundTripWithOptimizerStates) {
  auto dir = std::filesystem::temp_directory_path() / ("braid_module_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "mlp").string();
  auto [x, y] = blobs();
  io::NDArrayIter it(x, y, 20);
  auto b1 = *it.next(), b2 = *it.next();
  Module a(mlp());
  a.bind(it.provide_data(), it.provide_label());
  a.init_params();
  a.init_optimizer("local", "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}});
  for (const auto* b : {&b1}) {
    a.forward(*b);
    a.backward();
    a.update();
  }
  a.save_checkpoint(prefix, 3, true);
  a.forward(b2);
  a.backward();
  a.update();

  Module b = Module::load(prefix, 3, true);
  b.bind(it.provide_data(), it.provide_label());
  b.init_params();  // keeps the loaded values
  b.init_optimizer("local", "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}});
  b.forward(b2);
  b.backward();
  b.update();
  auto pa = a.get_params().first, pb = b.get_params().first;
  for (const auto& [n, v] : pa) EXPECT_EQ(values(v), values(pb[n])) << n;  // momentum carried over

  // do_checkpoint: every second epoch, numbered from 1.
  auto cb = do_checkpoint(prefix + "-cb", 2);
  for (int e = 0; e < 4; ++e) cb(e, a.symbol(), pa, {});
  EXPECT_FALSE(std::filesystem::exists(prefix + "-cb-0001.params"));
  EXPECT_TRUE(std::filesystem::exists(prefix + "-cb-0002.params"));
  EXPECT_TRUE(std::filesystem::exists(prefix + "-cb-0004.params"));
  auto [sym, arg, aux] = load_checkpoint(prefix + "-cb", 4);
  EXPECT_EQ(values(arg["fc1_weight"]), values(pa["fc1_weight"]));
  std::filesystem::remove_all(dir);
}

TEST(Module, FixedParametersStay) {
  auto [x, y] = blobs();
  io::NDArrayIter it(x, y, 30);
  Module m(mlp(), {"data"}, {"softmax_label"}, {cpu()}, {"fc1_weight"});
  m.bind(it.provide_data(), it.provide_label());
  m.init_params();
  m.init_optimizer("local", "sgd", {{"learning_rate", "0.5"}});
  auto before = m.get_params().first;
  auto batch = *it.next();
  m.forward(batch);
  m.backward();
  m.update();
  auto after = m.get_params().first;
  EXPECT_EQ(values(after["fc1_weight"]), values(before["fc1_weight"]));
  EXPECT_NE(values(after["fc2_weight"]), values(before["fc2_weight"]));
}

TEST(Module, ClearErrors) {
  auto [x, y] = blobs();
  io::NDArrayIter it(x, y, 30);
  Module m(mlp());
  EXPECT_THROW(m.forward(*it.next()), Error);  // before bind
  EXPECT_THROW(Module(mlp(), {"image"}), Error);
  EXPECT_THROW(Module(mlp(), {"data"}, {"softmax_label"}, {}), Error);  // no context
  m.bind(it.provide_data(), it.provide_label());
  m.init_params();
  EXPECT_THROW(m.init_optimizer("dist_sync"), Error);
}

// As MXNet: binding a bound module again is ignored (fit after bind keeps the executors and their
// parameters) unless force_rebind, which keeps the parameters and takes the new shapes.
TEST(Module, BindingTwiceIsIgnoredUnlessForced) {
  auto [x, y] = blobs();
  io::NDArrayIter by30(x, y, 30), by10(x, y, 10);
  Module m(mlp());
  m.bind(by30.provide_data(), by30.provide_label());
  m.init_params();
  const auto params = values(m.get_params().first["fc1_weight"]);
  m.bind(by10.provide_data(), by10.provide_label());
  m.forward(*by30.next(), false);
  EXPECT_EQ(m.get_outputs()[0].shape(), (Shape{30, 3}));
  m.bind(by10.provide_data(), by10.provide_label(), true, false, /*force_rebind=*/true);
  m.forward(*by10.next(), false);
  EXPECT_EQ(m.get_outputs()[0].shape(), (Shape{10, 3}));
  EXPECT_EQ(values(m.get_params().first["fc1_weight"]), params);
}

// Data parallelism: a batch split over cpu(0) and cpu(1) (unevenly: 23 = 12 + 11) trains like the
// whole batch on one context, through every store and update place; outputs come back merged.
TEST(Module, TwoContextsTrainLikeOne) {
  NDArray x, y;  // not a structured binding: the lambda below captures them (clang 14)
  std::tie(x, y) = blobs();
  auto train = [&](std::vector<Context> contexts, const std::string& kvstore, const char* update_on_kvstore,
                   std::vector<NDArray>* outputs) {
    setenv("MXNET_UPDATE_ON_KVSTORE", update_on_kvstore, 1);
    io::NDArrayIter it(x, y, 23);
    Module m(mlp(), {"data"}, {"softmax_label"}, contexts);
    m.bind(it.provide_data(), it.provide_label());
    nd::seed(11);
    m.init_params(std::make_shared<init::Xavier>());
    m.init_optimizer(kvstore, "sgd", {{"learning_rate", "0.5"}, {"momentum", "0.9"}});
    EXPECT_EQ(m.kvstore() ? m.kvstore()->type() : "", contexts.size() > 1 ? kvstore : "");
    EXPECT_EQ(m.update_on_kvstore(), contexts.size() > 1 && std::string(update_on_kvstore) == "1");
    for (int step = 0; step < 4; ++step) {
      auto batch = it.next();
      m.forward(*batch);
      m.backward();
      m.update();
      if (step == 3) *outputs = m.get_outputs();
    }
    unsetenv("MXNET_UPDATE_ON_KVSTORE");
    return m.get_params().first;
  };
  std::vector<NDArray> want_out, got_out;
  const ParamMap want = train({cpu(0)}, "device", "1", &want_out);
  for (const std::string kvstore : {"device", "local"})
    for (const char* on_store : {"1", "0"}) {
      const ParamMap got = train({cpu(0), cpu(1)}, kvstore, on_store, &got_out);
      const std::string what = kvstore + " update_on_kvstore=" + on_store;
      for (const auto& [name, w] : want) {
        auto a = values(got.at(name)), b = values(w);
        ASSERT_EQ(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5) << what << " " << name << "[" << i << "]";
      }
      ASSERT_EQ(got_out[0].shape(), (Shape{23, 3}));
      EXPECT_EQ(got_out[0].ctx(), cpu(0));
      auto a = values(got_out[0]), b = values(want_out[0]);
      for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5) << what << " output " << i;
    }
}

// kvstore None on two contexts: no store, the gradients are still summed over the contexts.
TEST(Module, TwoContextsWithoutAStoreSumTheGradients) {
  NDArray x, y;  // not a structured binding: the lambda below captures them (clang 14)
  std::tie(x, y) = blobs();
  auto train = [&](std::vector<Context> contexts) {
    io::NDArrayIter it(x, y, 20);
    Module m(mlp(), {"data"}, {"softmax_label"}, contexts);
    m.bind(it.provide_data(), it.provide_label());
    nd::seed(11);
    m.init_params(std::make_shared<init::Xavier>());
    m.init_optimizer("None", "sgd", {{"learning_rate", "0.5"}});
    EXPECT_EQ(m.kvstore(), nullptr);
    for (int step = 0; step < 3; ++step) {
      m.forward(*it.next());
      m.backward();
      m.update();
    }
    return values(m.get_params().first.at("fc1_weight"));
  };
  const auto one = train({cpu(0)}), two = train({cpu(0), cpu(1)});
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) ASSERT_NEAR(two[i], one[i], 1e-5) << i;
}

TEST(Module, LoadsAnMxnet11Checkpoint) {
  const std::string prefix = std::string(BRAID_FIXTURES_DIR) + "/sagemaker-linreg-model";
  Module m = Module::load(prefix, 0, false, {"data"}, {"lin_reg_label"});
  NDArray x = nd::array<float>({1.5f, -0.25f}, Shape{1, 2});
  NDArray label = nd::zeros(Shape{1, 1});
  io::NDArrayIter it({{"data", x}}, {{"lin_reg_label", label}}, 1);
  m.bind(it.provide_data(), it.provide_label(), false);
  auto pred = m.predict(it);
  auto [sym, arg, aux] = load_checkpoint(prefix, 0);
  auto w = values(arg["fc1_weight"]);
  float b = values(arg["fc1_bias"])[0];
  ASSERT_EQ(pred[0].shape(), (Shape{1, 1}));
  EXPECT_FLOAT_EQ(values(pred[0])[0], 1.5f * w[0] - 0.25f * w[1] + b);
}

}  // namespace
}  // namespace braid::mod
