// PrefetchingIter: the same batches as the inner iterator, several iterators joined and renamed,
// one batch fetched ahead, errors re-thrown in order, reset and destruction mid-epoch.
#include "braid/io/prefetching_iter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "braid/io/ndarray_iter.h"
#include "braid/ndarray/elemwise.h"
#include "iter_test_util.h"

namespace braid::test {
namespace {

using io::PrefetchingIter;
using namespace std::chrono_literals;

std::shared_ptr<io::NDArrayIter> shuffled(uint64_t seed, int64_t n = 23) {
  return std::make_shared<io::NDArrayIter>(arange_rows(n, 3), nd::arange(0, static_cast<double>(n)), 5, true,
                                           io::LastBatchHandle::Pad, seed);
}

TEST(PrefetchingIter, SameBatchesAsTheInnerIterator) {
  auto plain = shuffled(4);
  PrefetchingIter it({shuffled(4)});
  EXPECT_EQ(it.batch_size(), 5);
  EXPECT_EQ(it.provide_data()[0].shape, Shape({5, 3}));
  EXPECT_EQ(it.provide_label()[0].name, "softmax_label");
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto want = drain(*plain);
    auto got = drain(it);
    ASSERT_EQ(got.size(), want.size());
    ASSERT_EQ(got.size(), 5u);
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].index, want[k].index);
      EXPECT_EQ(got[k].pad, want[k].pad);
      EXPECT_EQ(got[k].data[0].to_vector<float>(), expected_rows(want[k].index, 3));
      EXPECT_EQ(got[k].label[0].to_vector<float>(), expected_rows(want[k].index, 1));
    }
    EXPECT_EQ(got.back().pad, 2);
    EXPECT_FALSE(it.next());
    plain->reset();
    it.reset();
  }
}

TEST(PrefetchingIter, JoinsSeveralIteratorsWithRenaming) {
  auto a = std::make_shared<io::NDArrayIter>(arange_rows(6, 2), nd::arange(0, 6), 4);
  auto b = std::make_shared<io::NDArrayIter>(arange_rows(6, 1) * 10.0, nd::arange(0, 6) + 100.0, 4);
  PrefetchingIter it({a, b}, {{}, {{"data", "data2"}}}, {{}, {{"softmax_label", "label2"}}});
  auto pd = it.provide_data();
  ASSERT_EQ(pd.size(), 2u);
  EXPECT_EQ(pd[0].name, "data");
  EXPECT_EQ(pd[0].shape, Shape({4, 2}));
  EXPECT_EQ(pd[1].name, "data2");
  EXPECT_EQ(pd[1].shape, Shape({4, 1}));
  auto pl = it.provide_label();
  ASSERT_EQ(pl.size(), 2u);
  EXPECT_EQ(pl[0].name, "softmax_label");
  EXPECT_EQ(pl[1].name, "label2");

  auto batches = drain(it);
  ASSERT_EQ(batches.size(), 2u);
  const auto& last = batches[1];
  EXPECT_EQ(last.pad, 2);
  EXPECT_EQ(last.index, (std::vector<int64_t>{4, 5, 0, 1}));
  ASSERT_EQ(last.data.size(), 2u);
  ASSERT_EQ(last.label.size(), 2u);
  EXPECT_EQ(last.data[0].to_vector<float>(), expected_rows({4, 5, 0, 1}, 2));
  EXPECT_EQ(last.data[1].to_vector<float>(), (std::vector<float>{40, 50, 0, 10}));
  EXPECT_EQ(last.label[0].to_vector<float>(), (std::vector<float>{4, 5, 0, 1}));
  EXPECT_EQ(last.label[1].to_vector<float>(), (std::vector<float>{104, 105, 100, 101}));
}

// Batches 0 .. n-1 (data and index hold k); throws at batch `fail_at`; counts next() calls and
// can be slow. reset() throws once when `fail_reset` is set.
class Scripted : public io::DataIter {
 public:
  explicit Scripted(int64_t n, int64_t fail_at = -1, std::chrono::milliseconds delay = 0ms)
      : n_(n), fail_at_(fail_at), delay_(delay) {}

  std::optional<io::DataBatch> next() override {
    ++calls;
    std::this_thread::sleep_for(delay_);
    if (k_ >= n_) return std::nullopt;
    const int64_t k = k_++;
    if (k == fail_at_) throw Error(cat("Scripted: batch ", k, " is broken"));
    io::DataBatch b;
    b.data.push_back(nd::full(Shape({1}), static_cast<double>(k)));
    b.index = {k};
    return b;
  }
  void reset() override {
    if (fail_reset.exchange(false)) throw Error("Scripted: reset failed");
    k_ = 0;
  }
  std::vector<io::DataDesc> provide_data() const override { return {{"data", Shape({1})}}; }
  std::vector<io::DataDesc> provide_label() const override { return {}; }
  int64_t batch_size() const override { return 1; }

  std::atomic<int> calls{0};
  std::atomic<bool> fail_reset{false};

 private:
  int64_t n_, fail_at_;
  std::chrono::milliseconds delay_;
  int64_t k_ = 0;
};

// Polls `cond` for up to 10 s.
template <class F>
bool eventually(F cond) {
  for (auto end = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < end;) {
    if (cond()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return cond();
}

TEST(PrefetchingIter, FetchesOneBatchAhead) {
  auto inner = std::make_shared<Scripted>(5);
  PrefetchingIter it({inner});
  EXPECT_TRUE(eventually([&] { return inner->calls == 1; })) << "the first batch is fetched at construction";
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(inner->calls, 1) << "no more than one batch ahead";
  EXPECT_EQ(it.next()->index, std::vector<int64_t>{0});
  EXPECT_TRUE(eventually([&] { return inner->calls == 2; }));
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(inner->calls, 2);
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{1, 2, 3, 4}));
  const int at_end = inner->calls;
  EXPECT_FALSE(it.next());
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(inner->calls, at_end) << "the end is not asked for again";
}

TEST(PrefetchingIter, InnerErrorsAreRethrownInOrder) {
  PrefetchingIter it({std::make_shared<Scripted>(5, /*fail_at=*/2)});
  EXPECT_EQ(it.next()->index, std::vector<int64_t>{0});
  EXPECT_EQ(it.next()->index, std::vector<int64_t>{1});
  EXPECT_TRUE(throws_mentioning([&] { it.next(); }, "Scripted: batch 2 is broken"));
  EXPECT_EQ(it.next()->index, std::vector<int64_t>{3});
  auto last = it.next();
  EXPECT_EQ(last->data[0].to_vector<float>(), std::vector<float>{4});
  EXPECT_FALSE(it.next());
}

TEST(PrefetchingIter, ResetMidEpochStartsOver) {
  auto inner = std::make_shared<Scripted>(6, -1, 2ms);
  PrefetchingIter it({inner});
  it.next();
  it.next();
  it.reset();
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  it.reset();
  it.reset();
  EXPECT_EQ(it.next()->index, std::vector<int64_t>{0});
}

TEST(PrefetchingIter, FailedInnerResetIsReportedAndRecoverable) {
  auto inner = std::make_shared<Scripted>(3);
  PrefetchingIter it({inner});
  it.next();
  inner->fail_reset = true;
  EXPECT_TRUE(throws_mentioning([&] { it.reset(); }, "Scripted: reset failed"));
  EXPECT_TRUE(throws_mentioning([&] { it.next(); }, "call reset() again"));
  it.reset();
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{0, 1, 2}));
}

TEST(PrefetchingIter, DestructionMidEpochJoinsTheThread) {
  const auto start = std::chrono::steady_clock::now();
  {
    PrefetchingIter it({std::make_shared<Scripted>(1000, -1, 5ms)});
    it.next();
    it.next();
  }
  { PrefetchingIter untouched({std::make_shared<Scripted>(1000, -1, 5ms)}); }
  {
    PrefetchingIter ended({std::make_shared<Scripted>(1)});
    drain(ended);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(PrefetchingIter, Errors) {
  using Iters = std::vector<std::shared_ptr<io::DataIter>>;
  EXPECT_TRUE(throws_mentioning([] { PrefetchingIter(Iters{}); }, "no inner iterators"));
  EXPECT_TRUE(throws_mentioning([] { PrefetchingIter({shuffled(1), nullptr}); }, "inner iterator 1 is null"));
  EXPECT_TRUE(throws_mentioning([] { PrefetchingIter({shuffled(1), shuffled(2)}); }, "'data' is provided twice"));
  EXPECT_TRUE(throws_mentioning([] { PrefetchingIter({shuffled(1)}, {{{"dta", "x"}}}); }, "renames 'dta'"));
  EXPECT_TRUE(throws_mentioning([] { PrefetchingIter({shuffled(1)}, {{}, {}}); }, "has 2 maps for 1 iterators"));
  EXPECT_TRUE(throws_mentioning(
      [] {
        PrefetchingIter({shuffled(1), std::make_shared<Scripted>(3)});
      },
      "has batch_size 1 but iterator 0 has 5"));

  auto three = std::make_shared<Scripted>(3), two = std::make_shared<Scripted>(2);
  PrefetchingIter uneven({three, two}, {{}, {{"data", "other"}}});
  EXPECT_EQ(uneven.next()->data.size(), 2u);
  EXPECT_EQ(uneven.next()->data.size(), 2u);
  EXPECT_TRUE(throws_mentioning([&] { uneven.next(); }, "inner iterator 1 ended after 2 batches"));
}

}  // namespace
}  // namespace braid::test
