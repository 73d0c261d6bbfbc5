// A whole parameter-server job (a scheduler, a server and workers) as threads of this process
// (ps_job_util.h): registration, authentication, sync rounds and barriers.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/kvstore/ps.h"
#include "braid/ndarray/creation.h"
#include "braid/optim/optimizers.h"
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

// An optimizer of another language (as a Python one is): it travels as its image, which the
// servers' loader turns back into an optimizer.
class ForeignSGD : public optim::SGD {
 public:
  std::string foreign_image() const override { return "image of a foreign sgd"; }
};

TEST(PsInProcess, ServersRebuildForeignOptimizersWithTheLoaderOrSayWhyNot) {
  std::vector<std::string> images;
  std::string refused;
  std::vector<float> pulled;
  for (const bool with_loader : {false, true}) {
    if (with_loader)
      kv::set_optimizer_loader([&](const std::string& image) -> std::shared_ptr<optim::Optimizer> {
        images.push_back(image);
        return optim::create("sgd", {{"learning_rate", "0.5"}});
      });
    const test::JobStatus status = run_job("dist_sync", with_loader ? 9104 : 9103, 1, 1, [&](kv::KVStore& store) {
      store.init(0, nd::ones(Shape({3})));
      try {
        store.set_optimizer(std::make_shared<ForeignSGD>());
      } catch (const Error& e) {
        refused = e.what();
        return;
      }
      store.push(0, {nd::full(Shape({3}), 2.0)});
      NDArray out = nd::zeros(Shape({3}));
      store.pull(0, {out});
      pulled = out.to_vector<float>();
    });
    EXPECT_EQ(status.scheduler, 0);
  }
  kv::set_optimizer_loader(nullptr);
  EXPECT_NE(refused.find("this server runs without Python"), std::string::npos) << refused;
  EXPECT_EQ(images, std::vector<std::string>{"image of a foreign sgd"});
  EXPECT_EQ(pulled, std::vector<float>(3, 0.f));  // 1 - 0.5 * 2: the loader's optimizer ran
}

}  // namespace
