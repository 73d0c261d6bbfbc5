// A whole parameter-server job (a scheduler, a server and workers) as threads of this process
// (ps_job_util.h): registration, authentication, sync rounds and barriers.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "braid/ndarray/creation.h"
#include "ps_job_util.h"

using namespace braid;
using test::run_job;

namespace {

// With a secret every message after the handshake is sealed and checked (frame_auth.h); the
// job's results are the same.
class PsInProcessSecret : public ::testing::TestWithParam<std::string> {};

TEST_P(PsInProcessSecret, DistSyncSumsEveryWorkersPush) {
  constexpr int kWorkers = 3;
  std::vector<std::vector<float>> pulled(kWorkers);
  const int port = GetParam().empty() ? 9100 : 9102;
  const test::JobStatus status = run_job(
      "dist_sync", port, kWorkers, 1,
      [&](kv::KVStore& store) {
        const int rank = store.rank();
        store.init(7, nd::zeros(Shape({4})));
        store.push(7, {nd::full(Shape({4}), rank + 1.0)});
        NDArray out = nd::zeros(Shape({4}));
        store.pull(7, {out});
        pulled[static_cast<size_t>(rank)] = out.to_vector<float>();
      },
      GetParam());
  EXPECT_EQ(status.scheduler, 0);
  EXPECT_EQ(status.servers, std::vector<int>{0});
  // Without an optimizer the servers store the round's sum: 1 + 2 + 3.
  for (int r = 0; r < kWorkers; ++r) EXPECT_EQ(pulled[static_cast<size_t>(r)], std::vector<float>(4, 6.0f)) << r;
}

INSTANTIATE_TEST_SUITE_P(WithAndWithout, PsInProcessSecret, ::testing::Values("", "s3cret"),
                         [](const auto& info) { return info.param.empty() ? "NoSecret" : "Secret"; });

TEST(PsInProcess, BarriersHoldEveryWorkerUntilAllArrive) {
  constexpr int kWorkers = 2;
  std::atomic<int> arrived{0};
  std::vector<int> seen(kWorkers, -1);
  const test::JobStatus status = run_job("dist_async", 9101, kWorkers, 1, [&](kv::KVStore& store) {
    ++arrived;
    store.barrier();
    seen[static_cast<size_t>(store.rank())] = arrived.load();
  });
  EXPECT_EQ(status.scheduler, 0);
  EXPECT_EQ(status.servers, std::vector<int>{0});
  EXPECT_EQ(seen, std::vector<int>(kWorkers, kWorkers));
}

}  // namespace
