// The ordinary MXNet pattern — a helper binds a Module, runs it and returns mod.get_outputs()[0]
// — gives correct results however soon the Module is gone: its queued kernels own what they use.
#include <gtest/gtest.h>

#include <memory>

#include "braid/module/module.h"
#include "common/drop_then_read.h"
#include "common/face_like_net.h"

namespace braid::mod {
namespace {

constexpr int64_t kBatch = 4;

std::shared_ptr<Module> bound_module(bool training, std::vector<Context> contexts) {
  Symbol net = test::face_like_net(training);
  const auto params = test::face_params(net);
  auto m = std::make_shared<Module>(net, std::vector<std::string>{"data"},
                                    training ? std::vector<std::string>{"softmax_label"} : std::vector<std::string>{},
                                    std::move(contexts));
  std::vector<io::DataDesc> labels;
  if (training) labels.push_back({"softmax_label", Shape{kBatch}});
  m->bind({{"data", test::face_input_shape(kBatch)}}, labels, training);
  m->init_params(std::make_shared<init::Uniform>(0.01), params.arg, params.aux);
  return m;
}

io::DataBatch batch_of(const NDArray& x) {
  io::DataBatch b;
  b.data = {x};
  b.label = {nd::array<float>({0, 3, 1, 4}, Shape{kBatch})};
  return b;
}

NDArray pixels() { return test::face_pixels(kBatch, 11); }

TEST(ModuleLifetime, OutputsOutliveTheModule) {
  test::expect_results_outlive_producer(
      [](const NDArray& x) {
        auto m = bound_module(false, {cpu()});
        m->forward(batch_of(x), false);
        return test::Produced{m->get_outputs(), m};
      },
      pixels);
}

// A training step over two contexts: merged outputs, gradients summed through the store, the
// optimizer's update, and parameter copies, all queued when the module goes.
TEST(ModuleLifetime, ATrainingStepOnTwoContextsOutlivesTheModule) {
  test::expect_results_outlive_producer(
      [](const NDArray& x) {
        auto m = bound_module(true, {cpu(0), cpu(1)});
        m->init_optimizer("device", "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}});
        m->forward(batch_of(x), true);
        m->backward();
        m->update();
        std::vector<NDArray> out = m->get_outputs();
        auto [arg, aux] = m->get_params();
        for (const auto& [name, a] : arg) out.push_back(a);
        for (const auto& [name, a] : aux) out.push_back(a);
        return test::Produced{out, m};
      },
      pixels);
}

}  // namespace
}  // namespace braid::mod
