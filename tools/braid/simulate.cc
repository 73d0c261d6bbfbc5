// braid simulate: a worker of a distributed job whose compute is a calibrated wait, to measure
// how a model's training would scale on a network without the machines to compute it. It trains
// nothing. Each step waits the forward's share of --step-ms layer by layer (each parameter's
// layer first waits for that parameter's exchange of the step before, as a real forward waits
// for its weights), then the backward's share in reverse order. With the parameter server, as a
// Trainer does, it hands the gradients to the KVStore in list pushpulls issued before they exist
// (--keys-per-list adjacent keys at a time); each gradient is an engine operation that ends when its
// layer's wait does, so each exchange starts as backward produces its gradients. The horovod
// store gets each gradient as its layer's wait ends (it fuses tensors itself). The gradients
// have the sizes of --model's parameters (divided by --scale, for small machines: divide the
// links' rates by the same factor and the times stay those of the full model). Every parameter
// counts the same share of the compute.
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "braid/base/error.h"
#include "braid/engine/engine.h"
#include "braid/gluon/block.h"
#include "braid/kvstore/kvstore.h"
#include "braid/kvstore/store_types.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/optim/optimizers.h"
#include "commands.h"
#include "models.h"

namespace braid::cli {
namespace {

using Clock = std::chrono::steady_clock;

// The learning rate of the servers' SGD: a power of two, so that the weights stay exact.
constexpr double kLearningRate = 1.0 / 1024;
constexpr const char* kLearningRateText = "0.0009765625";
// The most keys per list pushpull. The gradients' operations, and the exchanges waiting for them
// (one operation per key at most), wait for this thread: twice as many must stay under half the
// engine's default bound on pending operations (kDefaultMaxPending), where a pushing thread
// waits for the others to drain.
constexpr int kMostKeysPerList = 24;
// How late a sleep may end (with a timer slack of 1 us): waits shorter than this are not counted.
constexpr auto kJitter = std::chrono::microseconds(50);

// The element counts of `model`'s trained parameters, in order: its shapes are known after one
// forward of an image (10 classes for the small networks, 1000 for the zoo's).
std::vector<int64_t> parameter_sizes(const std::string& model) {
  const Shape sample = sample_shape(model);
  gluon::BlockPtr net = make_model(model, sample[1] == 1 ? 10 : 1000);
  net->initialize();
  (*net)(nd::zeros(sample)).wait_to_read();
  std::vector<int64_t> sizes;
  for (const auto& [name, p] : net->collect_params())
    if (p->grad_req() != GradReq::Null) sizes.push_back(p->data().shape().size());
  return sizes;
}

// Backward's gradients [first, last) as engine operations writing them, each ending when
// produce() is called for it.
class Backward {
 public:
  Backward(const std::vector<NDArray>& grads, size_t first, size_t last) : done_(grads.size()) {
    for (size_t i = last; i-- > first;) {
      const engine::VarHandle writes[] = {grads[i].var()};
      engine::Engine::get().push_async(
          [this, i](engine::Done done) {
            std::lock_guard<std::mutex> lock(mu_);
            done_[i] = std::move(done);
            started_.notify_all();
          },
          cpu(), {}, writes, 0, "simulated backward");
    }
  }
  /// Ends gradient i's operation (once the exchange of the step before has read it, as backward
  /// overwriting a gradient would wait).
  void produce(size_t i) {
    engine::Done done;
    {
      std::unique_lock<std::mutex> lock(mu_);
      started_.wait(lock, [&] { return static_cast<bool>(done_[i]); });
      done = std::move(done_[i]);
    }
    done(nullptr);
  }

 private:
  std::mutex mu_;
  std::condition_variable started_;
  std::vector<engine::Done> done_;
};

}  // namespace

CLI::App* add_simulate_command(CLI::App& app, SimulateOptions& o) {
  auto* s = app.add_subcommand("simulate",
                               "a worker of a distributed job whose compute is a calibrated wait: measures how MODEL's "
                               "training would scale on this network (under braid launch, or mpirun for horovod)");
  s->add_option("--model", o.model, "the model whose parameters travel (a zoo name, as braid train's)")
      ->capture_default_str();
  s->add_option("--step-ms", o.step_ms, "the compute time of one step on one worker (forward and backward)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  s->add_option("--forward-share", o.forward_share, "the forward's part of --step-ms")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  s->add_option("--steps", o.steps, "steps measured")->capture_default_str()->check(CLI::PositiveNumber);
  s->add_option("--warmup", o.warmup, "steps before those")->capture_default_str()->check(CLI::NonNegativeNumber);
  s->add_option("--scale", o.scale, "divide every parameter's size by this")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  s->add_option("--keys-per-list", o.keys_per_list,
                "parameter server: gradients handed over per list pushpull, whose small keys travel together (1: "
                "each on its own)")
      ->capture_default_str()
      ->check(CLI::Range(1, kMostKeysPerList));
  s->add_option("--kvstore", o.kvstore, "dist_sync, dist_async, dist_sync_device, horovod")->capture_default_str();
  s->add_option("--compression", o.compression, "2bit: MXNet's 2-bit gradient compression (threshold 0.5)");
  s->add_option("--json", o.json, "append this worker's figures to this file as one JSON line");
  return s;
}

int simulate(const SimulateOptions& o) {
  const kv::StoreType& type = kv::store_type(o.kvstore);
  BRAID_CHECK(type.distributed, "braid simulate: --kvstore ", o.kvstore,
              " is not a distributed store; give dist_sync, dist_async, dist_sync_device or horovod");
  std::vector<int64_t> sizes = parameter_sizes(o.model);
  int64_t elements = 0;
  for (int64_t& n : sizes) elements += (n = std::max<int64_t>(1, (n + o.scale - 1) / o.scale));
  std::shared_ptr<kv::KVStore> store = type.make(type);
  const bool servers = o.kvstore != "horovod";  // else a collective: no servers, no optimizer
  if (!o.compression.empty()) store->set_gradient_compression({{"type", o.compression}, {"threshold", "0.5"}});
  // Gradients of ones. The servers run SGD on weights starting at 0; the collective sums each
  // gradient in place, which the next forward then waits for (as the update would).
  const int n = static_cast<int>(sizes.size());
  BRAID_CHECK(engine::Engine::get().type() != engine::EngineType::Naive, "braid simulate: the NaiveEngine runs ",
              "every operation to its end before the next, so no exchange could overlap backward; unset ",
              "MXNET_ENGINE_TYPE");
  std::vector<NDArray> weights, grads;
  for (int i = 0; i < n; ++i) {
    grads.push_back(nd::ones(Shape({sizes[static_cast<size_t>(i)]})));
    weights.push_back(servers ? nd::zeros(grads.back().shape()) : grads.back());
    store->init(i, weights.back());
  }
  if (servers) store->set_optimizer(optim::create("sgd", {{"learning_rate", kLearningRateText}}));
  prctl(PR_SET_TIMERSLACK, 1000UL);  // sleeps end within microseconds, not the default 50 us
  const auto share = std::chrono::duration<double, std::milli>(o.step_ms / n);
  const double forward = o.forward_share, backward = 1 - o.forward_share;
  std::vector<double> step_ms;
  for (int step = 0; step < o.warmup + o.steps; ++step) {
    const auto start = Clock::now();
    auto until = start;
    for (int i = 0; i < n; ++i) {  // forward: each layer waits for its weights first
      const auto before = Clock::now();
      weights[static_cast<size_t>(i)].wait_to_read();
      const auto after = Clock::now();
      // A wait shorter than the sleeps' own jitter is none: the layer starts when its share would.
      if (after - before > kJitter) until = std::max(until, after);
      until += std::chrono::duration_cast<Clock::duration>(share * forward);
      std::this_thread::sleep_until(until);
    }
    auto layer_ends = [&] {
      until += std::chrono::duration_cast<Clock::duration>(share * backward);
      std::this_thread::sleep_until(until);
    };
    for (int i = n - 1; i >= 0 && !servers; --i) {  // backward, a collective: reduced in place
      layer_ends();
      grads[static_cast<size_t>(i)].fill(1);
      store->pushpull(i, {grads[static_cast<size_t>(i)]}, {weights[static_cast<size_t>(i)]}, -i);
    }
    for (int last = n; last > 0 && servers; last -= o.keys_per_list) {  // backward: each travels once ready
      const int first = std::max(0, last - o.keys_per_list);
      Backward produced(grads, static_cast<size_t>(first), static_cast<size_t>(last));
      std::vector<kv::Key> keys;
      std::vector<std::vector<NDArray>> values, outs;
      std::vector<int> priorities;
      for (int i = first; i < last; ++i) {
        keys.emplace_back(i);
        values.push_back({grads[static_cast<size_t>(i)]});
        outs.push_back({weights[static_cast<size_t>(i)]});
        priorities.push_back(-i);
      }
      store->pushpull(keys, values, outs, priorities);
      for (int i = last - 1; i >= first; --i) {
        layer_ends();
        produced.produce(static_cast<size_t>(i));
      }
    }
    if (step >= o.warmup) step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  nd::waitall();
  // Each step's round summed every worker's gradient of ones (2-bit: the codes of +0.5 each); the
  // servers' SGD applied every round, the collective's last round is in place.
  if (!type.asynchronous) {
    const double per_round = store->num_workers() * (o.compression.empty() ? 1.0 : 0.5);
    const float expected = static_cast<float>(servers ? -kLearningRate * per_round * (o.warmup + o.steps) : per_round);
    for (int i = 0; i < n; ++i)
      for (float w : weights[static_cast<size_t>(i)].to_vector<float>())
        BRAID_CHECK(w == expected, "braid simulate: parameter ", i, " holds ", w, " after the run, expected ", expected,
                    ": the exchanges lost or repeated a gradient");
  }
  double mean = 0;
  for (double t : step_ms) mean += t / static_cast<double>(step_ms.size());
  const double efficiency = o.step_ms / mean;
  std::printf(
      "braid simulate: worker %d of %d, %s: %d parameters, %.1f MB of gradients per step; %d steps of %.2f ms "
      "(compute %.2f ms): efficiency %.3f\n",
      store->rank(), store->num_workers(), o.kvstore.c_str(), n, static_cast<double>(elements) * 4 / 1e6, o.steps, mean,
      o.step_ms, efficiency);
  std::fflush(stdout);
  if (!o.json.empty()) {
    std::FILE* f = std::fopen(o.json.c_str(), "a");
    BRAID_CHECK(f, "braid simulate: cannot append to ", o.json);
    std::fprintf(f,
                 "{\"worker\": %d, \"workers\": %d, \"kvstore\": \"%s\", \"compression\": \"%s\", \"model\": \"%s\", "
                 "\"scale\": %lld, \"bytes\": %lld, \"compute_ms\": %.3f, \"step_ms\": %.3f, \"efficiency\": %.4f}\n",
                 store->rank(), store->num_workers(), o.kvstore.c_str(), o.compression.c_str(), o.model.c_str(),
                 static_cast<long long>(o.scale), static_cast<long long>(elements * 4), o.step_ms, mean, efficiency);
    std::fclose(f);
  }
  return 0;
}

}  // namespace braid::cli
