// Braid's side of bench/train_vs_torch.py: trains LeNet or the MLP of the model zoo on
// Fashion-MNIST held in memory (shuffled once), with Gluon's loop (record, forward, loss,
// backward, Trainer SGD lr 0.05 momentum 0.9), and prints one JSON line: samples per second over
// the timed batches, the last loss and the peak resident memory of the process.
//
//   train_bench --model lenet|mlp --batch B [--warmup N] [--batches N] [--hybridize [--static-alloc]]
//               [--contexts N [--kvstore device|local]] [--device cpu|gpu] [--profile]
//
// With --contexts N the batch is split over cpu(0) .. cpu(N-1) (split_and_load) and the Trainer
// sums the gradients through the KVStore, as MXNet's multi-device examples do. With --device gpu
// the contexts are gpu(0) .. gpu(N-1) and the training set is copied to the first GPU once, as
// PyTorch's side of bench/gpu_vs_torch.py holds it.
//
// Kernel threads come from OMP_NUM_THREADS (read by the OpenMP runtime before main starts), so
// the script sets it for both sides.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/device/cpu_share.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/gluon/trainer.h"
#include "braid/gluon/utils.h"
#include "braid/init/init.h"
#include "braid/io/idx.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"
#include "braid/profiler/profiler.h"

namespace {

using namespace braid;

// The training images (float32 in [0, 1]) in a random order (seed 0), the labels in the same
// order. Converted from the file's bytes while shuffling, to hold one float copy only.
std::pair<NDArray, NDArray> shuffled_training_set() {
  const std::string dir = io::fashion_mnist_dir();
  NDArray bytes = io::load_idx(dir + "/train-images-idx3-ubyte.gz");
  NDArray labels = io::load_idx_labels(dir + "/train-labels-idx1-ubyte.gz");
  const int64_t n = bytes.shape()[0], row = bytes.size() / n;
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(0));
  NDArray x = nd::empty(Shape({n, 1, bytes.shape()[1], bytes.shape()[2]})), y = nd::empty(labels.shape());
  bytes.wait_to_read();
  labels.wait_to_read();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = order[static_cast<size_t>(i)];
    const uint8_t* from = bytes.data<uint8_t>() + j * row;
    std::transform(from, from + row, x.data<float>() + i * row, [](uint8_t v) { return v / 255.0f; });
    y.data<float>()[i] = labels.data<float>()[j];
  }
  return {x, y};
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

struct Options {
  std::string model = "lenet";
  int64_t batch = 64;
  int warmup = 20, batches = 200;
  bool hybridize = false, static_alloc = false;
  int contexts = 1;
  std::string kvstore = "device";
  std::string device = "cpu";
  bool profile = false;
};

// Host time spent in each phase of the timed steps (the main thread queues the work; on a fast
// device this is what bounds the step rate).
struct Phases {
  double forward = 0, backward = 0, update = 0;
};

int run(const Options& o) {
  const auto& [model, batch, warmup, batches, hybridize, static_alloc, contexts, kvstore, device, profile] = o;
  std::vector<Context> ctx;
  for (int i = 0; i < contexts; ++i) ctx.push_back(device == "gpu" ? gpu(i) : cpu(i));
  nd::seed(0);
  auto [images, labels] = shuffled_training_set();
  if (device == "gpu") {
    images = images.copyto(ctx[0]);
    labels = labels.copyto(ctx[0]);
  }
  auto net = gluon::model_zoo::get_simple_model(model);
  net->initialize(std::make_shared<init::Xavier>(), ctx);
  if (hybridize) net->hybridize(true, static_alloc);
  gluon::Trainer trainer(net->collect_params(), "sgd", {{"learning_rate", "0.05"}, {"momentum", "0.9"}}, kvstore);
  gluon::loss::SoftmaxCrossEntropyLoss loss_fn;
  if (hybridize) loss_fn.hybridize(true, static_alloc);  // as MXNet's examples do
  const int64_t steps_per_epoch = images.shape()[0] / batch;
  NDArray loss;
  Phases phases;
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  auto start = Clock::now();
  for (int i = 0; i < warmup + batches; ++i) {
    if (i == warmup) {
      if (!loss.is_none()) loss.wait_to_read();
      phases = Phases{};
      if (profile) {
        profiler::Config c;
        c.aggregate_stats = true;
        c.profile_memory = false;
        profiler::set_config(c);
        profiler::set_state(true);
      }
      start = Clock::now();
    }
    auto phase = Clock::now();
    const int64_t k = i % steps_per_epoch;
    NDArray x = images.slice(k * batch, (k + 1) * batch), y = labels.slice(k * batch, (k + 1) * batch);
    if (contexts == 1) {
      {
        autograd::RecordScope record;
        loss = loss_fn((*net)(x), y);
      }
      phases.forward += since(phase);
      phase = Clock::now();
      loss.backward();
      phases.backward += since(phase);
    } else {
      auto xs = gluon::utils::split_and_load(x, ctx, 0, false), ys = gluon::utils::split_and_load(y, ctx, 0, false);
      std::vector<NDArray> losses;
      {
        autograd::RecordScope record;
        for (size_t c = 0; c < ctx.size(); ++c) losses.push_back(loss_fn((*net)(xs[c]), ys[c]));
      }
      autograd::backward(losses);
      loss = losses[0];
      phases.backward += since(phase);
    }
    phase = Clock::now();
    trainer.step(batch);
    phases.update += since(phase);
  }
  const float mean_loss = nd::mean(loss).scalar<float>();  // waits for the last batch
  nd::waitall();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double per_step_ms = 1e3 / batches;
  nlohmann::json out{{"samples_per_sec", static_cast<double>(batches * batch) / seconds},
                     {"loss", mean_loss},
                     {"peak_rss_mb", peak_rss_mb()},
                     {"cpu_share", cpu_share::current().summary()},
                     {"host_ms_per_step",
                      {{"forward", phases.forward * per_step_ms},
                       {"backward", phases.backward * per_step_ms},
                       {"update", phases.update * per_step_ms}}}};
  std::printf("%s\n", out.dump().c_str());
  if (profile) {  // the operators of the timed steps, by total time
    profiler::set_state(false);
    std::fprintf(stderr, "%s\n", profiler::dumps(true, "table", "total", false).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Braid's side of bench/train_vs_torch.py");
  Options o;
  app.add_option("--model", o.model, "lenet or mlp")->capture_default_str();
  app.add_option("--batch", o.batch)->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup)->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--batches", o.batches, "timed batches")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_flag("--hybridize", o.hybridize, "run the network as a compiled graph");
  app.add_flag("--static-alloc", o.static_alloc, "with --hybridize: reuse one set of buffers");
  app.add_option("--contexts", o.contexts, "split each batch over cpu(0) .. cpu(N-1)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--kvstore", o.kvstore, "with --contexts: device or local")->capture_default_str();
  app.add_flag("--profile", o.profile, "print the profiler's operator table of the timed steps to stderr");
  app.add_option("--device", o.device, "train on cpu(i) or gpu(i) contexts")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "gpu"}));
  CLI11_PARSE(app, argc, argv);
  braid::cpu_share::adopt_wait_policy(argv);  // as braid train does
  try {
    return run(o);
  } catch (const braid::Error& e) {
    std::fprintf(stderr, "train_bench: %s\n", e.what());
    return 2;
  }
}
