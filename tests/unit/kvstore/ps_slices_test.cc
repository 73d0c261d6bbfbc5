// Big keys cut into slices within a server (key_value.h): the layout, and a server that updates
// each slice on its own round giving what one optimizer gives on the whole key: the values, the
// per-key learning-rate multiplier, Adam's update count, and the states saved and loaded back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/optim/optimizer.h"
#include "kvstore/ps/key_value.h"
#include "ps_job_util.h"

namespace braid {
namespace {

using kv::ps::kMinSliceElements;
using kv::ps::Slice;
using kv::ps::slices_of;

// The slices are ascending and adjacent, cover the value, and hold whole rows.
void expect_tiling(const std::vector<Slice>& slices, int64_t rows, int64_t width) {
  int64_t at = 0;
  for (const Slice& s : slices) {
    EXPECT_EQ(s.begin, at);
    EXPECT_GT(s.end, s.begin);
    EXPECT_EQ(s.begin % width, 0);
    at = s.end;
  }
  EXPECT_EQ(at, rows * width);
}

TEST(PsSlices, ABigKeyIsCutIntoSlicesOfAtMostTheBoundOnEachServer) {
  // 1,000 rows of 1,000 over 2 servers, bound 300,000: 500 rows each, cut in two.
  const std::vector<Slice> big = slices_of(7, 1000, 1000, 2, 300000);
  ASSERT_EQ(big.size(), 4u);
  expect_tiling(big, 1000, 1000);
  EXPECT_EQ(big[0].server, 0);
  EXPECT_EQ(big[1].server, 0);
  EXPECT_EQ(big[2].server, 1);
  EXPECT_EQ(big[3].server, 1);
  EXPECT_EQ(big[0].size(), 250000);
  // The default bound: 16 MB of float32 on one server in slices of at most 4 MB.
  const std::vector<Slice> one_server = slices_of(7, 4 << 20, 1, 1, 1000000);
  ASSERT_EQ(one_server.size(), 5u);  // ceil(4,194,304 / 1,000,000)
  expect_tiling(one_server, 4 << 20, 1);
  // Under the bound: whole on one server.
  const std::vector<Slice> small = slices_of(7, 10, 3, 3, 1000000);
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].server, static_cast<int>(7 * 9973 % 3));
  // A tiny bound splits over the servers, but slices stay at least kMinSliceElements...
  const std::vector<Slice> tiny = slices_of(7, 1 << 20, 1, 2, 4);
  ASSERT_EQ(tiny.size(), static_cast<size_t>(2 * ((1 << 19) / kMinSliceElements)));
  expect_tiling(tiny, 1 << 20, 1);
  // ... or one row each, when a row is wider.
  const std::vector<Slice> wide = slices_of(7, 3, kMinSliceElements * 2, 1, 4);
  ASSERT_EQ(wide.size(), 3u);
  expect_tiling(wide, 3, kMinSliceElements * 2);
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-6f + 1e-5f * std::fabs(want[i])) && wrong++ < 3)
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", expected " << want[i];
  EXPECT_EQ(wrong, 0u) << what;
}

// The gradient a worker pushes: different in every row, slice and round.
NDArray gradient(const Shape& shape, int rank, int round) {
  std::vector<float> g(static_cast<size_t>(shape.size()));
  for (size_t i = 0; i < g.size(); ++i) g[i] = std::sin(0.001f * static_cast<float>(i) + rank) + 0.1f * round;
  return nd::array<float>(g, shape);
}

TEST(PsSlices, AServerUpdatingEachSliceOnItsOwnGivesTheWholeKeysUpdate) {
  setenv("MXNET_KVSTORE_BIGARRAY_BOUND", "300000", 1);  // key 0: four slices on the one server
  constexpr int kWorkers = 2, kRounds = 3;
  const Shape big{1000, 1000}, small{4, 5};
  const std::map<std::string, std::string> params = {{"learning_rate", "0.01"}, {"wd", "0.001"}};
  auto configure = [](optim::Optimizer& o) { o.set_lr_mult({}, {{0, 0.5}}); };
  const std::string dir = ::testing::TempDir();
  std::vector<std::vector<float>> after(kWorkers), after_load(kWorkers);
  std::vector<io::NamedArrays> saved(kWorkers);
  const test::JobStatus status = test::run_job("dist_sync", 9122, kWorkers, 1, [&](kv::KVStore& store) {
    const int rank = store.rank();
    store.init({kv::Key(0), kv::Key(1)}, {nd::ones(big), nd::ones(small)});
    auto adam = optim::create("adam", params);
    configure(*adam);
    store.set_optimizer(std::move(adam));
    NDArray out = nd::zeros(big), out_small = nd::zeros(small);
    for (int round = 0; round < kRounds; ++round) {
      store.pushpull(0, {gradient(big, rank, round)}, {out});
      store.pushpull(1, {gradient(small, rank, round)}, {out_small});
    }
    after[static_cast<size_t>(rank)] = out.to_vector<float>();
    const std::string path = dir + "/ps_slices_states_" + std::to_string(rank) + ".params";
    store.save_optimizer_states(path);
    saved[static_cast<size_t>(rank)] = io::load(path);
    store.barrier();
    store.load_optimizer_states(path);  // the same states back: the next round goes on from them
    store.pushpull(0, {gradient(big, rank, kRounds)}, {out});
    after_load[static_cast<size_t>(rank)] = out.to_vector<float>();
  });
  unsetenv("MXNET_KVSTORE_BIGARRAY_BOUND");
  EXPECT_EQ(status.scheduler, 0);
  EXPECT_EQ(status.servers, std::vector<int>{0});

  auto reference = optim::create("adam", params);
  configure(*reference);
  NDArray w = nd::ones(big), w_small = nd::ones(small);
  auto summed = [&](const Shape& shape, int round) {
    NDArray sum = gradient(shape, 0, round);
    for (int r = 1; r < kWorkers; ++r) sum = nd::invoke1("elemwise_add", {sum, gradient(shape, r, round)});
    return sum;
  };
  for (int round = 0; round < kRounds; ++round) {
    reference->update(0, w, summed(big, round));
    reference->update(1, w_small, summed(small, round));
  }
  const std::vector<float> want = w.to_vector<float>();
  const io::NamedArrays want_states = io::load_from_bytes(reference->save_states());
  reference->update(0, w, summed(big, kRounds));
  const std::vector<float> want_after_load = w.to_vector<float>();
  for (size_t r = 0; r < kWorkers; ++r) {
    expect_near(after[r], want, "value after " + std::to_string(kRounds) + " rounds");
    ASSERT_EQ(saved[r].names, want_states.names);
    for (size_t i = 0; i < want_states.names.size(); ++i) {
      EXPECT_EQ(saved[r].arrays[i].shape(), want_states.arrays[i].shape()) << want_states.names[i];
      expect_near(saved[r].arrays[i].astype(DType::Float32).to_vector<float>(),
                  want_states.arrays[i].astype(DType::Float32).to_vector<float>(), want_states.names[i]);
    }
    expect_near(after_load[r], want_after_load, "value after the states were loaded back");
  }
}

}  // namespace
}  // namespace braid
