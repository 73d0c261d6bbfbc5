// A big key cut into slices on its server (key_value.h) against the same key sent whole, in one
// run: pushpull of one float32 key through one server running SGD with momentum, 1 worker, on
// 127.0.0.1. The sliced job uses the default MXNET_KVSTORE_BIGARRAY_BOUND (slices of at most 4 MB);
// the whole one a bound above the key, so that each exchange is one message each way. The two
// jobs are timed in alternation, round by round, so that the shared host's drifts hit both.
//
//   ps_slices_bench [ROUNDS]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_processes.h"
#include "braid/kvstore/kvstore.h"
#include "braid/ndarray/creation.h"
#include "braid/optim/optimizer.h"

int main(int argc, char** argv) {
  using namespace braid;
  using Clock = std::chrono::steady_clock;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  const int sliced_port = 24000 + getpid() % 1000, whole_port = sliced_port + 1;
  std::vector<pid_t> processes;
  for (int port : {sliced_port, whole_port})
    for (const char* role : {"scheduler", "server"})
      processes.push_back(bench::spawn({bench::self_dir() + "/braid", "server"}, bench::ps_job_env(port, role, 1, 1)));
  auto worker_store = [](int port, const char* bound) {
    bench::become_ps_worker(port, 1, 1);
    setenv("MXNET_KVSTORE_BIGARRAY_BOUND", bound, 1);
    auto store = kv::create("dist_sync");
    store->set_optimizer(optim::create("sgd", {{"learning_rate", "0.001"}, {"momentum", "0.9"}}));
    return store;
  };
  std::printf(
      "pushpull of one float32 key, SGD with momentum on 1 server, 1 worker on 127.0.0.1, median of %d "
      "rounds\n",
      rounds);
  std::printf("%10s %8s %16s %16s %8s\n", "bytes", "slices", "sliced MB/s", "whole MB/s", "ratio");
  {
    auto sliced = worker_store(sliced_port, "1000000");
    auto whole = worker_store(whole_port, "2000000000");
    int key = 0;
    for (int64_t bytes : {int64_t{4} << 20, int64_t{16} << 20, int64_t{64} << 20}) {
      const int64_t n = bytes / 4;
      NDArray grad = nd::ones(Shape{n}), weight = nd::zeros(Shape{n});
      sliced->init(key, weight);
      whole->init(key, weight);
      auto pushpull = [&](kv::KVStore& store) {
        const auto t0 = Clock::now();
        store.pushpull(key, {grad}, {weight});
        weight.wait_to_read();
        return 2.0 * static_cast<double>(bytes) / std::chrono::duration<double>(Clock::now() - t0).count() / 1e6;
      };
      std::vector<double> a, b;
      for (int r = -2; r < rounds; ++r) {  // two rounds of warm-up
        const double x = pushpull(*sliced), y = pushpull(*whole);
        if (r >= 0) a.push_back(x), b.push_back(y);
      }
      const double x = bench::median(a), y = bench::median(b);
      std::printf("%10lld %8lld %16.0f %16.0f %8.2f\n", static_cast<long long>(bytes),
                  static_cast<long long>((n + 999999) / 1000000), x, y, x / y);
      ++key;
    }
  }
  for (pid_t p : processes) kill(p, SIGTERM);
  for (pid_t p : processes) waitpid(p, nullptr, 0);
  return 0;
}
