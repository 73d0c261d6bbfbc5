// DataLoader: batches equal manual stacking, identical for 0 and 2 workers (random transforms
// included), last_batch modes, errors thrown at the batch where they happened, early exit.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/random.h"
#include "data_test_util.h"

namespace braid::test::gluon_data {
namespace {

using namespace gluon::data;
namespace tf = vision::transforms;

// n images 3 x 4 x 1 (uint8, distinct values) with labels 0 .. n-1.
std::shared_ptr<ArrayDataset> images(int64_t n) {
  NDArray x = (nd::arange(0, static_cast<double>(n * 12)).reshape({n, 3, 4, 1}) * 7.0);
  return std::make_shared<ArrayDataset>(x.astype(DType::Int32).astype(DType::UInt8),
                                        nd::arange(0, static_cast<double>(n)));
}

std::vector<Batch> all_batches(DataLoader& loader) {
  std::vector<Batch> out;
  for (const Batch& b : loader) out.push_back(b);
  return out;
}

TEST(DataLoader, BatchesEqualManualStacking) {
  auto ds = images(10)->transform_first(tf::ToTensor());
  DataLoader loader(ds, 4);
  EXPECT_EQ(loader.size(), 3);
  auto batches = all_batches(loader);
  ASSERT_EQ(batches.size(), 3u);
  const std::vector<std::vector<int64_t>> expect_idx = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}};
  for (size_t k = 0; k < batches.size(); ++k) {
    std::vector<Sample> samples;
    for (int64_t i : expect_idx[k]) samples.push_back(ds->get(i));
    expect_same(batches[k], default_batchify(samples), "batch " + std::to_string(k));
  }
  EXPECT_EQ(batches[0][0].shape(), Shape({4, 1, 3, 4}));
  EXPECT_EQ(batches[2][1].shape(), Shape({2}));
}

TEST(DataLoader, WorkersGiveTheSameBatchesInOrder) {
  auto ds = images(23)->transform_first(tf::Compose({tf::RandomFlipLeftRight(), tf::RandomCrop(3, 1), tf::ToTensor()}));
  auto epochs = [&](int workers) {
    nd::seed(5);
    DataLoader loader(ds, {.batch_size = 4, .shuffle = true, .num_workers = workers});
    auto first = all_batches(loader);
    auto second = all_batches(loader);
    first.insert(first.end(), second.begin(), second.end());
    return first;
  };
  auto serial = epochs(0), threaded = epochs(2);
  ASSERT_EQ(serial.size(), 12u);
  ASSERT_EQ(threaded.size(), serial.size());
  for (size_t k = 0; k < serial.size(); ++k) expect_same(serial[k], threaded[k], "batch " + std::to_string(k));
  // Shuffled, and differently in the two epochs.
  EXPECT_NE(serial[0][1].to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_NE(serial[0][1].to_vector<float>(), serial[6][1].to_vector<float>());
}

TEST(DataLoader, LastBatchModes) {
  auto ds = images(10);
  DataLoader discard(ds, {.batch_size = 4, .last_batch = LastBatch::Discard});
  EXPECT_EQ(discard.size(), 2);
  EXPECT_EQ(all_batches(discard).size(), 2u);
  DataLoader rollover(ds, {.batch_size = 4, .last_batch = LastBatch::Rollover, .num_workers = 2});
  EXPECT_EQ(all_batches(rollover).size(), 2u);  // 8, 9 carried over
  auto second = all_batches(rollover);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[0][1].to_vector<float>(), (std::vector<float>{8, 9, 0, 1}));
}

TEST(DataLoader, CustomBatchifyAndBatchSampler) {
  auto ds = images(6);
  BatchifyFn labels_only = [](const std::vector<Sample>& s) {
    std::vector<float> v;
    for (const auto& x : s) v.push_back(x[1].scalar<float>());
    return Batch{nd::array(v)};
  };
  struct Pairs : BatchSampler {  // (5, 0), (4, 1), (3, 2)
    std::vector<std::vector<int64_t>> next_epoch() override { return {{5, 0}, {4, 1}, {3, 2}}; }
    int64_t size() const override { return 3; }
  };
  DataLoader loader(ds, {.batch_sampler = std::make_shared<Pairs>(), .batchify_fn = labels_only, .num_workers = 1});
  auto b = all_batches(loader);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[1][0].to_vector<float>(), (std::vector<float>{4, 1}));
}

TEST(DataLoader, BadOptionsAreErrors) {
  auto ds = images(4);
  EXPECT_THROW(DataLoader(ds, {.batch_size = 0}), Error);
  EXPECT_THROW(DataLoader(ds, {.batch_size = 2, .shuffle = true, .sampler = std::make_shared<SequentialSampler>(4)}),
               Error);
  EXPECT_THROW(
      DataLoader(ds, {.batch_size = 2,
                      .batch_sampler = std::make_shared<BatchSampler>(std::make_shared<SequentialSampler>(4), 2)}),
      Error);
  EXPECT_THROW(DataLoader(nullptr, 2), Error);
}

// Sample 7 cannot be made: the batch holding it (batch 3 at batch size 2) throws, the earlier
// ones arrive.
void expect_error_at_batch_3(int workers) {
  auto bad = images(10)->transform([](const Sample& s) -> Sample {
    if (s[1].scalar<float>() == 7.f) throw Error("sample 7 is corrupt");
    return s;
  });
  DataLoader loader(bad, {.batch_size = 2, .num_workers = workers});
  int reached = 0;
  try {
    for (const Batch& b : loader) {
      EXPECT_EQ(b[1].to_vector<float>()[0], 2.f * static_cast<float>(reached));
      ++reached;
    }
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sample 7 is corrupt"), std::string::npos) << e.what();
  }
  EXPECT_EQ(reached, 3) << workers << " workers";
}

TEST(DataLoader, ErrorSurfacesAtItsBatch) {
  expect_error_at_batch_3(0);
  expect_error_at_batch_3(2);
}

TEST(DataLoader, PrefetchIsBoundedAndEarlyExitJoinsWorkers) {
  auto made = std::make_shared<std::atomic<int>>(0);
  auto slow = images(64)->transform([made](const Sample& s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ++*made;
    return s;
  });
  {
    DataLoader loader(slow, {.batch_size = 2, .num_workers = 2, .prefetch = 3});
    auto it = loader.begin();  // holds batch 0; workers make batches 1 .. 3 and no more
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (made->load() < 2 * 4 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(made->load(), 2 * 4) << "the workers did not fill the prefetch";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time for a batch too many
    EXPECT_EQ(made->load(), 2 * 4) << "the workers went past the prefetch bound";
    ++it;
  }  // iterator and loader destroyed mid-epoch: threads stop and join
  const int after = made->load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(made->load(), after);
}

TEST(DataLoader, IteratorOutlivesItsLoader) {
  std::optional<DataLoader> loader(std::in_place, images(6), DataLoaderOptions{.batch_size = 2, .num_workers = 2});
  auto it = loader->begin();
  loader.reset();
  int n = 0;
  for (; !(it == std::default_sentinel); ++it) ++n;
  EXPECT_EQ(n, 3);
}

}  // namespace
}  // namespace braid::test::gluon_data
