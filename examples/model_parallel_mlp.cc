// Model parallelism with a micro-batch pipeline: a four-layer MLP whose first half lives on
// cpu(0) and second half on cpu(1) (a Sequential copies the activations across, and autograd the
// gradients back), trained on Fashion-MNIST. With --micro-batches M each batch runs as M slices
// pushed one after the other: the engine runs slice k's second half on cpu(1) while slice k+1's
// first half runs on cpu(0), so both devices work at once. The program trains the same network
// twice, unpipelined (one slice) and pipelined, and prints both speeds.
//
//   build/bin/model_parallel_mlp [--batches 60] [--batch 1024] [--micro-batches 2] [--hidden 1024]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/nn.h"
#include "braid/gluon/trainer.h"
#include "braid/gluon/utils.h"
#include "braid/init/init.h"
#include "braid/io/idx.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"

using namespace braid;
using namespace braid::gluon;

struct Options {
  int batches = 60, micro = 2;
  int64_t batch = 1024, hidden = 1024;
};

std::shared_ptr<nn::Sequential> two_stage_mlp(int64_t hidden) {
  auto net = std::make_shared<nn::Sequential>();
  auto scope = net->name_scope();
  auto first = std::make_shared<nn::HybridSequential>(), second = std::make_shared<nn::HybridSequential>();
  first->add(std::make_shared<nn::Dense>(hidden, "relu"));
  first->add(std::make_shared<nn::Dense>(hidden, "relu"));
  second->add(std::make_shared<nn::Dense>(hidden, "relu"));
  second->add(std::make_shared<nn::Dense>(10));
  net->add(first);
  net->add(second);
  nd::seed(1);
  first->initialize(std::make_shared<init::Xavier>(), {cpu(0)});
  second->initialize(std::make_shared<init::Xavier>(), {cpu(1)});
  return net;
}

// Trains `batches` batches in `micro` slices each; returns samples per second and the last loss.
std::pair<double, double> train(const NDArray& images, const NDArray& labels, const Options& o, int micro) {
  auto net = two_stage_mlp(o.hidden);
  Trainer trainer(net->collect_params(), "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}});
  loss::SoftmaxCrossEntropyLoss loss_fn;
  const int64_t per_epoch = images.shape()[0] / o.batch;
  NDArray last;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.batches; ++i) {
    if (i == 5) {  // after warming up
      nd::waitall();
      start = std::chrono::steady_clock::now();
    }
    const int64_t k = i % per_epoch;
    auto xs = utils::split_data(images.slice(k * o.batch, (k + 1) * o.batch), micro, 0, false);
    auto ys = utils::split_data(labels.slice(k * o.batch, (k + 1) * o.batch), micro, 0, false);
    std::vector<NDArray> losses;
    {
      autograd::RecordScope record;
      for (size_t m = 0; m < xs.size(); ++m) losses.push_back(loss_fn((*net)(xs[m]), ys[m].as_in_context(cpu(1))));
    }
    autograd::backward(losses);
    trainer.step(o.batch);
    last = losses.back();
  }
  const double loss = nd::mean(last).scalar<float>();
  nd::waitall();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {static_cast<double>((o.batches - 5) * o.batch) / seconds, loss};
}

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--batches") == 0)
      o.batches = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--batch") == 0)
      o.batch = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--micro-batches") == 0)
      o.micro = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--hidden") == 0)
      o.hidden = std::atoll(argv[i + 1]);
  }
  try {
    BRAID_CHECK(o.batches > 5 && o.micro >= 1 && o.batch >= o.micro,
                "give --batches > 5 and --batch >= --micro-batches");
    const std::string dir = io::fashion_mnist_dir();
    NDArray images = io::load_idx(dir + "/train-images-idx3-ubyte.gz").astype(DType::Float32);
    images = images.reshape({images.shape()[0], -1});
    images *= 1.0 / 255.0;
    NDArray labels = io::load_idx_labels(dir + "/train-labels-idx1-ubyte.gz");
    const auto [plain, plain_loss] = train(images, labels, o, 1);
    std::printf("unpipelined (1 slice): %.0f samples/s, loss %.4f\n", plain, plain_loss);
    const auto [piped, piped_loss] = train(images, labels, o, o.micro);
    std::printf("pipelined (%d micro-batches): %.0f samples/s, loss %.4f\n", o.micro, piped, piped_loss);
    std::printf("speed-up %.2fx\n", piped / plain);
  } catch (const Error& e) {
    std::fprintf(stderr, "model_parallel_mlp: %s\n", e.what());
    return 2;
  }
  return 0;
}
