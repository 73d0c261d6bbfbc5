// A whole parameter-server job (a scheduler, a server and workers) as threads of this process
// (ps_job_util.h): registration, authentication, sync rounds and barriers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
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

// init of a list: worker 0's values reach every worker, split keys and whole ones alike; a list
// that names a key twice is refused before any of its keys is initialised.
TEST(PsInProcess, InitOfAListStoresWorkerZerosValuesAndRefusesARepeatedKey) {
  setenv("MXNET_KVSTORE_BIGARRAY_BOUND", "100", 1);  // keys 0, 2, 4, ... are split over both servers
  constexpr int kWorkers = 2, kKeys = 12;
  std::vector<std::vector<std::vector<float>>> pulled(kWorkers);
  std::vector<std::string> refusals(kWorkers);
  std::vector<int> initialised_after_refusal(kWorkers, -1);
  const test::JobStatus status = run_job("dist_sync", 9105, kWorkers, 2, [&](kv::KVStore& store) {
    const auto rank = static_cast<size_t>(store.rank());
    std::vector<kv::Key> keys;
    std::vector<NDArray> values;
    for (int k = 0; k < kKeys; ++k) {
      keys.emplace_back(k);
      values.push_back(nd::full(Shape({k % 2 == 0 ? 50 : 5, 3}), 100.0 * static_cast<double>(rank) + k));
    }
    store.init(keys, values);
    for (int k = 0; k < kKeys; ++k) {
      NDArray out = nd::zeros(values[static_cast<size_t>(k)].shape());
      store.pull(k, {out});
      pulled[rank].push_back(out.to_vector<float>());
    }
    try {
      store.init({kv::Key(40), kv::Key(41), kv::Key(40)},
                 {nd::zeros(Shape({2})), nd::zeros(Shape({2})), nd::zeros(Shape({2}))});
    } catch (const Error& e) {
      refusals[rank] = e.what();
    }
    initialised_after_refusal[rank] = store.is_initialized(40) + store.is_initialized(41);
  });
  unsetenv("MXNET_KVSTORE_BIGARRAY_BOUND");
  EXPECT_EQ(status.scheduler, 0);
  EXPECT_EQ(status.servers, (std::vector<int>{0, 0}));
  for (size_t r = 0; r < kWorkers; ++r) {
    ASSERT_EQ(pulled[r].size(), static_cast<size_t>(kKeys)) << r;
    for (int k = 0; k < kKeys; ++k)
      EXPECT_EQ(pulled[r][static_cast<size_t>(k)], std::vector<float>(k % 2 == 0 ? 150 : 15, static_cast<float>(k)))
          << "worker " << r << ", key " << k;
    EXPECT_NE(refusals[r].find("key 40 appears twice"), std::string::npos) << refusals[r];
    EXPECT_EQ(initialised_after_refusal[r], 0) << r;
  }
}
