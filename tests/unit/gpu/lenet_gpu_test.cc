// Training on a GPU as MXNet's users do it (Gluon, autograd, Trainer): LeNet's first steps on
// gpu(0) give the weights the CPU gives, data parallelism across gpu(0) and cpu(0) trains like
// one device, and an epoch on Fashion-MNIST reaches the CPU's test accuracy.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/autograd/autograd.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/gluon/trainer.h"
#include "braid/gluon/utils.h"
#include "braid/init/init.h"
#include "braid/io/idx.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"
#include "common/gpu_test.h"
#include "device/kernel_graph.h"

namespace braid::gluon {
namespace {

struct Trained {
  BlockPtr net;
  std::vector<float> weights;  // every parameter of the first context, in order
};

// `steps` SGD steps of LeNet on `contexts`, each batch split over them by split_and_load; the
// batches come from `images`/`labels` (on the CPU) in order, or are random when those are empty.
Trained train_lenet(const std::vector<Context>& contexts, int steps, int64_t batch, const NDArray& images = {},
                    const NDArray& labels = {}, bool static_graph = false) {
  nd::seed(5);
  Trained run{model_zoo::get_simple_model("lenet"), {}};
  run.net->initialize(std::make_shared<init::Xavier>(), contexts);
  if (static_graph) run.net->hybridize(true, /*static_alloc=*/true, /*static_shape=*/true);
  Trainer trainer(run.net->collect_params(), "sgd", {{"learning_rate", "0.05"}, {"momentum", "0.9"}}, "device");
  loss::SoftmaxCrossEntropyLoss loss_fn;
  for (int step = 0; step < steps; ++step) {
    NDArray x, y;
    if (images.is_none()) {
      x = nd::random_uniform(0, 1, Shape{batch, 1, 28, 28});
      y = nd::random_randint(0, 10, Shape{batch}).astype(DType::Float32);
    } else {
      x = images.slice(step * batch, (step + 1) * batch);
      y = labels.slice(step * batch, (step + 1) * batch);
    }
    auto xs = utils::split_and_load(x, contexts), ys = utils::split_and_load(y, contexts);
    std::vector<NDArray> losses;
    {
      autograd::RecordScope record;
      for (size_t c = 0; c < contexts.size(); ++c) losses.push_back(loss_fn((*run.net)(xs[c]), ys[c]));
    }
    autograd::backward(losses);
    trainer.step(batch);
  }
  for (const auto& [name, p] : run.net->collect_params()) {
    auto w = p->data(contexts[0]).to_vector<float>();
    run.weights.insert(run.weights.end(), w.begin(), w.end());
  }
  return run;
}

void expect_same_weights(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  // cuDNN and cuBLAS sum in another order than the CPU kernels: float32 rounding, not errors.
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 2e-4 + 2e-3 * std::abs(want[i])) << what << " weight " << i;
}

TEST(GpuTraining, LenetStepsOnTheGpuGiveTheCpuWeights) {
  REQUIRE_GPU();
  const Trained on_cpu = train_lenet({cpu(0)}, 3, 16);
  const Trained on_gpu = train_lenet({gpu(0)}, 3, 16);
  expect_same_weights(on_gpu.weights, on_cpu.weights, "gpu(0)");
}

TEST(GpuTraining, DataParallelOverAGpuAndTheCpuTrainsLikeOneDevice) {
  REQUIRE_GPU();
  const Trained one = train_lenet({cpu(0)}, 3, 16);
  const Trained two = train_lenet({gpu(0), cpu(0)}, 3, 16);
  expect_same_weights(two.weights, one.weights, "gpu(0) + cpu(0)");
  for (const auto& [name, p] : two.net->collect_params()) {
    const std::vector<float> c = p->data(cpu(0)).to_vector<float>(), g = p->data(gpu(0)).to_vector<float>();
    for (size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(g[i], c[i], 1e-6 + 1e-6 * std::abs(c[i])) << name << " " << i;
  }
}

TEST(GpuTraining, AStaticHybridizedLenetReplaysCudaGraphsAndTrainsLikeImperative) {
  REQUIRE_GPU();
  const int steps = 6;
  const Trained imperative = train_lenet({gpu(0)}, steps, 32);
  const uint64_t launches = gpu_runtime::KernelGraph::total_launches();
  const Trained graphed = train_lenet({gpu(0)}, steps, 32, {}, {}, /*static_graph=*/true);
  // Forward and backward are each captured at the second step and replayed from the third on (an
  // input array the storage pool happens to place elsewhere costs a step and a capture again).
  EXPECT_GE(gpu_runtime::KernelGraph::total_launches() - launches, static_cast<uint64_t>(steps));
  expect_same_weights(graphed.weights, imperative.weights, "hybridized with static_alloc");
}

// Test accuracy of `net` (parameters on `ctx`) over the whole Fashion-MNIST test set.
double test_accuracy(Block& net, Context ctx) {
  const std::string dir = io::fashion_mnist_dir();
  NDArray images = io::load_idx_images(dir + "/t10k-images-idx3-ubyte.gz");
  NDArray labels = io::load_idx_labels(dir + "/t10k-labels-idx1-ubyte.gz");
  const std::vector<float> truth = labels.to_vector<float>();
  const int64_t n = images.shape()[0], batch = 1000;
  int64_t right = 0;
  for (int64_t b = 0; b < n; b += batch) {
    NDArray x = images.slice(b, b + batch).copyto(ctx);
    const std::vector<float> guess = nd::argmax(net(x).copyto(cpu()), 1).to_vector<float>();
    for (int64_t i = 0; i < batch; ++i) right += guess[i] == truth[b + i];
  }
  return static_cast<double>(right) / static_cast<double>(n);
}

TEST(GpuTraining, AnEpochOnFashionMnistReachesTheCpuAccuracy) {
  REQUIRE_GPU();
  const std::string dir = io::fashion_mnist_dir();
  NDArray images = io::load_idx_images(dir + "/train-images-idx3-ubyte.gz");
  NDArray labels = io::load_idx_labels(dir + "/train-labels-idx1-ubyte.gz");
  const int steps = 200;  // 12,800 images
  Trained on_cpu = train_lenet({cpu(0)}, steps, 64, images, labels);
  Trained on_gpu = train_lenet({gpu(0)}, steps, 64, images, labels);
  const double cpu_accuracy = test_accuracy(*on_cpu.net, cpu(0)), gpu_accuracy = test_accuracy(*on_gpu.net, gpu(0));
  EXPECT_GT(cpu_accuracy, 0.75);
  EXPECT_NEAR(gpu_accuracy, cpu_accuracy, 0.02) << "cpu " << cpu_accuracy << ", gpu " << gpu_accuracy;
}

}  // namespace
}  // namespace braid::gluon
