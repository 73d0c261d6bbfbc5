// What a Block, a SymbolBlock or a Trainer hands out stays valid and correct when they are
// destroyed with their work still queued: outputs, gradients and stepped parameters.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "braid/autograd/autograd.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/nn.h"
#include "braid/gluon/symbol_block.h"
#include "braid/gluon/trainer.h"
#include "braid/io/params.h"
#include "common/drop_then_read.h"
#include "common/face_like_net.h"

namespace braid::gluon {
namespace {

constexpr int64_t kBatch = 4;

NDArray pixels() { return test::face_pixels(kBatch, 23); }

enum class Mode { Imperative, Hybridized, StaticAlloc };

/// Conv, BatchNorm, LeakyReLU, Dense with fixed parameter values.
std::shared_ptr<nn::HybridSequential> face_block(Mode mode) {
  auto net = std::make_shared<nn::HybridSequential>("face_");
  {
    auto scope = net->name_scope();
    net->add(std::make_shared<nn::Conv2D>(8, 3, nn::ConvOptions{.padding = 1, .use_bias = false}));
    net->add(std::make_shared<nn::BatchNorm>());
    net->add(std::make_shared<nn::LeakyReLU>(0.1));
    net->add(std::make_shared<nn::Dense>(test::kFaceClasses));
  }
  net->initialize();
  (*net)(test::face_pixels(1, 0)).wait_to_read();  // completes the deferred shapes
  unsigned seed = 300;
  for (const auto& [name, p] : net->collect_params_with_prefix()) {
    const bool variance = name.find("running_var") != std::string::npos;
    p->set_data(test::face_random(p->data().shape(), seed++, variance ? 0.5f : -0.05f, variance ? 1.5f : 0.05f));
  }
  if (mode != Mode::Imperative) net->hybridize(true, mode == Mode::StaticAlloc);
  return net;
}

TEST(BlockLifetime, OutputsOutliveTheBlock) {
  for (Mode mode : {Mode::Imperative, Mode::Hybridized, Mode::StaticAlloc}) {
    SCOPED_TRACE(static_cast<int>(mode));
    test::expect_results_outlive_producer(
        [mode](const NDArray& x) {
          auto net = face_block(mode);
          return test::Produced{{(*net)(x)}, net};
        },
        pixels);
  }
}

TEST(BlockLifetime, GradientsOutliveTheBlock) {
  for (Mode mode : {Mode::Imperative, Mode::Hybridized, Mode::StaticAlloc}) {
    SCOPED_TRACE(static_cast<int>(mode));
    test::expect_results_outlive_producer(
        [mode](const NDArray& x) {
          auto net = face_block(mode);
          NDArray y;
          {
            autograd::RecordScope rec;
            y = (*net)(x);
          }
          y.backward();
          std::vector<NDArray> out = {y};
          for (const auto& [name, p] : net->collect_params_with_prefix())
            if (p->grad_req() != GradReq::Null) out.push_back(p->grad());
          return test::Produced{out, net};
        },
        pixels);
  }
}

// The recorded graph keeps what its backward needs: a block dropped between forward and
// backward still gives its parameters' gradients, the compiled graph's included.
TEST(BlockLifetime, BackwardAfterTheBlockIsGone) {
  for (Mode mode : {Mode::Imperative, Mode::Hybridized, Mode::StaticAlloc}) {
    SCOPED_TRACE(static_cast<int>(mode));
    auto forward = [mode](std::vector<NDArray>& grads) {
      auto net = face_block(mode);
      autograd::RecordScope rec;
      NDArray y = (*net)(pixels());
      for (const auto& [name, p] : net->collect_params_with_prefix())
        if (p->grad_req() != GradReq::Null) grads.push_back(p->grad());
      return y;  // the block goes here
    };
    std::vector<NDArray> want, got;
    NDArray y = forward(want);
    y.backward();
    for (int run = 0; run < test::drop_runs(); ++run) {
      got.clear();
      forward(got).backward();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].to_vector<float>(), want[i].to_vector<float>()) << i;
    }
  }
}

TEST(BlockLifetime, ATrainingStepOutlivesTheTrainerAndTheBlock) {
  for (Mode mode : {Mode::Imperative, Mode::Hybridized}) {
    SCOPED_TRACE(static_cast<int>(mode));
    test::expect_results_outlive_producer(
        [mode](const NDArray& x) {
          auto net = face_block(mode);
          const std::map<std::string, std::string> sgd = {{"learning_rate", "0.1"}, {"momentum", "0.9"}};
          auto trainer = std::make_shared<Trainer>(net->collect_params(), "sgd", sgd);
          loss::SoftmaxCrossEntropyLoss loss_fn;
          NDArray loss;
          {
            autograd::RecordScope rec;
            loss = loss_fn((*net)(x), nd::array<float>({0, 3, 1, 4}, Shape{kBatch}));
          }
          loss.backward();
          trainer->step(kBatch);
          std::vector<NDArray> out = {loss};
          for (const auto& [name, p] : net->collect_params_with_prefix()) out.push_back(p->data());
          using Both = std::pair<std::shared_ptr<Trainer>, std::shared_ptr<nn::HybridSequential>>;
          return test::Produced{out, std::make_shared<Both>(trainer, net)};
        },
        pixels);
  }
}

// MXNet's files, as a user's helper loads them: SymbolBlock.imports, forward, return.
TEST(SymbolBlockLifetime, OutputsOutliveTheImportedBlock) {
  const auto dir = std::filesystem::temp_directory_path() / ("braid_symbol_block_lifetime_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  Symbol net = test::face_like_net(false);
  net.save((dir / "face-symbol.json").string());
  const auto params = test::face_params(net);
  std::vector<std::pair<std::string, NDArray>> named;
  for (const auto& [name, a] : params.arg) named.emplace_back("arg:" + name, a);
  for (const auto& [name, a] : params.aux) named.emplace_back("aux:" + name, a);
  io::save((dir / "face-0000.params").string(), named);
  test::expect_results_outlive_producer(
      [&dir](const NDArray& x) {
        auto block =
            SymbolBlock::imports((dir / "face-symbol.json").string(), {"data"}, (dir / "face-0000.params").string());
        return test::Produced{{(*block)(x)}, block};
      },
      pixels);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace braid::gluon
