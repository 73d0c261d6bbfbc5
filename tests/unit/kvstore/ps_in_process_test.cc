// A whole parameter-server job (a scheduler, a server and workers) as threads of this process,
// over the in-process transport (kvstore/ps/inproc_van.h): the nodes' and servers' logic
// without sockets.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "braid/ndarray/creation.h"
#include "kvstore/ps/dist_store.h"
#include "kvstore/ps/scheduler.h"
#include "kvstore/ps/server.h"

using namespace braid;

namespace {

kv::ps::Config job_config(kv::ps::Role role, int port, int workers, const std::string& secret) {
  kv::ps::Config c;
  c.secret = secret;
  c.role = role;
  c.root_uri = c.host = "in-process";
  c.root_port = port;
  c.num_servers = 1;
  c.num_workers = workers;
  c.transport = kv::ps::Transport::InProcess;
  return c;
}

// Runs the job: the scheduler and the server on threads of their own, `work(store)` on one
// thread per worker; returns the exit statuses of the scheduler and the server.
template <class Work>
std::pair<int, int> run_job(const std::string& type, int port, int workers, Work work, const std::string& secret = "") {
  int scheduler_status = -1, server_status = -1;
  std::thread scheduler(
      [&] { scheduler_status = kv::ps::Scheduler(job_config(kv::ps::Role::Scheduler, port, workers, secret)).run(); });
  std::thread server(
      [&] { server_status = kv::ps::run_server_node(job_config(kv::ps::Role::Server, port, workers, secret)); });
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      auto store = kv::ps::make_worker_store(type, job_config(kv::ps::Role::Worker, port, workers, secret));
      work(*store);
    });
  for (auto& t : threads) t.join();
  server.join();
  scheduler.join();
  return {scheduler_status, server_status};
}

// With a secret every message after the handshake is sealed and checked (frame_auth.h); the
// job's results are the same.
class PsInProcessSecret : public ::testing::TestWithParam<std::string> {};

TEST_P(PsInProcessSecret, DistSyncSumsEveryWorkersPush) {
  constexpr int kWorkers = 3;
  std::vector<std::vector<float>> pulled(kWorkers);
  const int port = GetParam().empty() ? 9100 : 9102;
  auto [scheduler, server] = run_job(
      "dist_sync", port, kWorkers,
      [&](kv::KVStore& store) {
        const int rank = store.rank();
        store.init(7, nd::zeros(Shape({4})));
        store.push(7, {nd::full(Shape({4}), rank + 1.0)});
        NDArray out = nd::zeros(Shape({4}));
        store.pull(7, {out});
        pulled[static_cast<size_t>(rank)] = out.to_vector<float>();
      },
      GetParam());
  EXPECT_EQ(scheduler, 0);
  EXPECT_EQ(server, 0);
  // Without an optimizer the servers store the round's sum: 1 + 2 + 3.
  for (int r = 0; r < kWorkers; ++r) EXPECT_EQ(pulled[static_cast<size_t>(r)], std::vector<float>(4, 6.0f)) << r;
}

INSTANTIATE_TEST_SUITE_P(WithAndWithout, PsInProcessSecret, ::testing::Values("", "s3cret"),
                         [](const auto& info) { return info.param.empty() ? "NoSecret" : "Secret"; });

TEST(PsInProcess, BarriersHoldEveryWorkerUntilAllArrive) {
  constexpr int kWorkers = 2;
  std::atomic<int> arrived{0};
  std::vector<int> seen(kWorkers, -1);
  auto [scheduler, server] = run_job("dist_async", 9101, kWorkers, [&](kv::KVStore& store) {
    ++arrived;
    store.barrier();
    seen[static_cast<size_t>(store.rank())] = arrived.load();
  });
  EXPECT_EQ(scheduler, 0);
  EXPECT_EQ(server, 0);
  EXPECT_EQ(seen, std::vector<int>(kWorkers, kWorkers));
}

}  // namespace
