// pushpull on the parameter server: one exchange per key whose reply carries the value after the
// round, and what a running profiler learns about each exchange from the servers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "braid/kvstore/ps.h"
#include "braid/ndarray/creation.h"
#include "braid/optim/optimizers.h"
#include "braid/profiler/profiler.h"
#include "ps_job_util.h"

using namespace braid;
using test::run_job;

namespace {

// Sets MXNET_KVSTORE_BIGARRAY_BOUND for the test's stores: values of `bound` elements or more are
// split over the servers.
class BigArrayBound {
 public:
  explicit BigArrayBound(int bound) { setenv("MXNET_KVSTORE_BIGARRAY_BOUND", std::to_string(bound).c_str(), 1); }
  ~BigArrayBound() { unsetenv("MXNET_KVSTORE_BIGARRAY_BOUND"); }
};

// Key 3 (1,200 elements) is split over the two servers, key 5 (4) is whole on one.
TEST(PsPushPull, EveryWorkerGetsTheRoundsResultFromItsPush) {
  BigArrayBound bound(1000);
  constexpr int kWorkers = 3;
  std::vector<std::vector<float>> big(kWorkers), small(kWorkers), updated(kWorkers);
  const test::JobStatus status = run_job("dist_sync", 9120, kWorkers, 2, [&](kv::KVStore& store) {
    const auto rank = static_cast<size_t>(store.rank());
    store.init(3, nd::zeros(Shape({300, 4})));
    store.init(5, nd::full(Shape({4}), 10.0));
    NDArray big_out = nd::zeros(Shape({300, 4})), small_out = nd::zeros(Shape({4}));
    store.pushpull(3, {nd::full(Shape({300, 4}), static_cast<double>(rank) + 1)}, {big_out});
    store.pushpull(5, {nd::full(Shape({4}), static_cast<double>(rank) + 1)}, {small_out});
    big[rank] = big_out.to_vector<float>();
    small[rank] = small_out.to_vector<float>();
    // With an optimizer on the servers, the value after its update: 6 - 0.1 * (1 + 2 + 3).
    store.set_optimizer(optim::create("sgd", {{"learning_rate", "0.1"}}));
    store.pushpull(5, {nd::full(Shape({4}), static_cast<double>(rank) + 1)}, {small_out});
    updated[rank] = small_out.to_vector<float>();
  });
  EXPECT_EQ(status.scheduler, 0);
  EXPECT_EQ(status.servers, (std::vector<int>{0, 0}));
  // Without an optimizer the servers store the round's sum: 1 + 2 + 3.
  for (size_t r = 0; r < kWorkers; ++r) {
    EXPECT_EQ(big[r], std::vector<float>(1200, 6.f)) << r;
    EXPECT_EQ(small[r], std::vector<float>(4, 6.f)) << r;
    EXPECT_EQ(updated[r], std::vector<float>(4, 6.f - 0.1f * 6.f)) << r;
  }
}

// Each exchange is in the trace with its bytes both ways and the servers' figures, which fit in it.
TEST(PsPushPull, TheProfilerRecordsEachExchangeWithTheServersTimes) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "ps_pushpull_profile.json";
  profiler::Config config;
  config.filename = path.string();
  profiler::set_config(config);
  profiler::set_state(true);
  constexpr int kWorkers = 2, kRounds = 3;
  const test::JobStatus status = run_job("dist_sync", 9121, kWorkers, 1, [&](kv::KVStore& store) {
    store.init(0, nd::zeros(Shape({64, 16})));
    NDArray out = nd::zeros(Shape({64, 16}));
    for (int round = 0; round < kRounds; ++round) store.pushpull(0, {nd::ones(Shape({64, 16}))}, {out});
    store.push(0, {nd::ones(Shape({64, 16}))});
    store.pull(0, {out});
    out.wait_to_read();
  });
  profiler::set_state(false);
  profiler::dump(true);
  EXPECT_EQ(status.scheduler, 0);
  const nlohmann::json trace = nlohmann::json::parse(std::ifstream(path));
  std::map<std::string, int> seen;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e.value("cat", "") != "kvstore") continue;
    const std::string name = e["name"];
    ++seen[name];
    const nlohmann::json& args = e["args"];
    EXPECT_EQ(args["key"], 0);
    // 64 * 16 float32 values: sent by a push, received by a pull, both by a pushpull.
    EXPECT_EQ(args["bytes"], name == "kvstore pushpull" ? 8192 : 4096) << e;
    const int64_t work = args["server_work_us"], wait = args["server_wait_us"];
    EXPECT_GE(work, 0) << e;
    EXPECT_GE(wait, 0) << e;
    EXPECT_LE(work + wait, e["dur"].get<int64_t>()) << e;
    if (name == "kvstore pull") {
      EXPECT_EQ(wait, 0) << e;
    }
  }
  EXPECT_EQ(seen,
            (std::map<std::string, int>{
                {"kvstore pull", kWorkers}, {"kvstore push", kWorkers}, {"kvstore pushpull", kWorkers * kRounds}}));
}

}  // namespace
