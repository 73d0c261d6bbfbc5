// NDArrayIter: exact batch contents and pad counts for pad / discard / roll_over, shuffling,
// several named arrays, descriptions and errors.
#include "braid/io/ndarray_iter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "iter_test_util.h"

namespace braid::test {
namespace {

using io::DataBatch;
using io::LastBatchHandle;
using io::NDArrayIter;

// Checks one batch of an iterator over arange_rows(n, 2) data and arange(n) labels.
void expect_batch(const DataBatch& b, const std::vector<int64_t>& index, int pad) {
  EXPECT_EQ(b.index, index);
  EXPECT_EQ(b.pad, pad);
  ASSERT_EQ(b.data.size(), 1u);
  ASSERT_EQ(b.label.size(), 1u);
  EXPECT_EQ(b.data[0].shape(), Shape({static_cast<int64_t>(index.size()), 2}));
  EXPECT_EQ(b.data[0].to_vector<float>(), expected_rows(index, 2));
  EXPECT_EQ(b.label[0].to_vector<float>(), expected_rows(index, 1));
}

NDArrayIter ten_samples(int64_t batch_size, LastBatchHandle handle, bool shuffle = false, uint64_t seed = 0) {
  return NDArrayIter(arange_rows(10, 2), nd::arange(0, 10), batch_size, shuffle, handle, seed);
}

struct Want {
  std::vector<int64_t> index;
  int pad = 0;
};

// Drains the rest of the epoch and checks every batch.
void expect_epoch(NDArrayIter& it, const std::vector<Want>& want) {
  auto batches = drain(it);
  ASSERT_EQ(batches.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    SCOPED_TRACE(testing::Message() << "batch " << k);
    expect_batch(batches[k], want[k].index, want[k].pad);
  }
  EXPECT_FALSE(it.next()) << "the end of an epoch stays until reset()";
}

TEST(NDArrayIter, PadWrapsAroundToTheStart) {
  auto it = ten_samples(4, LastBatchHandle::Pad);
  expect_epoch(it, {{{0, 1, 2, 3}}, {{4, 5, 6, 7}}, {{8, 9, 0, 1}, 2}});
  it.reset();
  expect_epoch(it, {{{0, 1, 2, 3}}, {{4, 5, 6, 7}}, {{8, 9, 0, 1}, 2}});
}

TEST(NDArrayIter, PadWithBatchLargerThanTheData) {
  NDArrayIter it(arange_rows(3, 2), nd::arange(0, 3), 7);
  expect_epoch(it, {{{0, 1, 2, 0, 1, 2, 0}, 4}});
}

TEST(NDArrayIter, ExactMultipleHasNoPad) {
  auto it = ten_samples(5, LastBatchHandle::Pad);
  expect_epoch(it, {{{0, 1, 2, 3, 4}}, {{5, 6, 7, 8, 9}}});
}

TEST(NDArrayIter, DiscardDropsTheIncompleteBatch) {
  auto it = ten_samples(4, LastBatchHandle::Discard);
  expect_epoch(it, {{{0, 1, 2, 3}}, {{4, 5, 6, 7}}});
  it.reset();
  expect_epoch(it, {{{0, 1, 2, 3}}, {{4, 5, 6, 7}}});
}

TEST(NDArrayIter, RollOverCarriesLeftoversIntoTheNextEpoch) {
  auto it = ten_samples(4, LastBatchHandle::RollOver);
  expect_epoch(it, {{{0, 1, 2, 3}}, {{4, 5, 6, 7}}});
  it.reset();
  // 8, 9 open epoch 2, whose 12 samples fill three batches exactly.
  expect_epoch(it, {{{8, 9, 0, 1}}, {{2, 3, 4, 5}}, {{6, 7, 8, 9}}});
  it.reset();
  expect_epoch(it, {{{0, 1, 2, 3}}, {{4, 5, 6, 7}}});
  it.reset();
  expect_batch(*it.next(), {8, 9, 0, 1}, 0);
}

TEST(NDArrayIter, RollOverResetMidEpochCarriesNothing) {
  auto it = ten_samples(4, LastBatchHandle::RollOver);
  drain(it);
  it.reset();  // 8, 9 wait at the start of this epoch
  it.reset();  // dropped: MXNet too forgets them on a second reset
  expect_batch(*it.next(), {0, 1, 2, 3}, 0);
  it.reset();
  expect_batch(*it.next(), {0, 1, 2, 3}, 0);
}

TEST(NDArrayIter, ShuffleVisitsEverySampleOncePerEpochInANewOrder) {
  const int64_t n = 50;
  NDArrayIter it(arange_rows(n, 3), nd::arange(0, static_cast<double>(n)), 10, true, LastBatchHandle::Pad, 7);
  std::vector<std::vector<int64_t>> orders;
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<int64_t> order;
    for (const auto& b : drain(it)) {
      EXPECT_EQ(b.pad, 0);
      EXPECT_EQ(b.data[0].to_vector<float>(), expected_rows(b.index, 3));
      EXPECT_EQ(b.label[0].to_vector<float>(), expected_rows(b.index, 1));
      order.insert(order.end(), b.index.begin(), b.index.end());
    }
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all);
    EXPECT_NE(order, all) << "epoch " << epoch << " is not shuffled";
    orders.push_back(order);
    it.reset();
  }
  EXPECT_NE(orders[0], orders[1]);
  EXPECT_NE(orders[1], orders[2]);

  NDArrayIter same(arange_rows(n, 3), nd::arange(0, static_cast<double>(n)), 10, true, LastBatchHandle::Pad, 7);
  NDArrayIter other(arange_rows(n, 3), nd::arange(0, static_cast<double>(n)), 10, true, LastBatchHandle::Pad, 8);
  EXPECT_EQ(same.next()->index, std::vector<int64_t>(orders[0].begin(), orders[0].begin() + 10));
  EXPECT_NE(other.next()->index, same.next()->index);
}

TEST(NDArrayIter, ShuffledPadFillsFromTheEpochsOwnOrder) {
  auto it = ten_samples(4, LastBatchHandle::Pad, true, 3);
  auto batches = drain(it);
  ASSERT_EQ(batches.size(), 3u);
  const auto& first = batches[0].index;
  const auto& last = batches[2];
  EXPECT_EQ(last.pad, 2);
  EXPECT_EQ(last.index[2], first[0]);
  EXPECT_EQ(last.index[3], first[1]);
  expect_batch(last, last.index, 2);
}

TEST(NDArrayIter, ShuffledRollOverCarriesTheOldOrdersTail) {
  auto it = ten_samples(4, LastBatchHandle::RollOver, true, 5);
  std::vector<int64_t> seen;
  for (const auto& b : drain(it)) seen.insert(seen.end(), b.index.begin(), b.index.end());
  it.reset();
  auto first = *it.next();
  std::vector<int64_t> rest;
  for (int64_t i = 0; i < 10; ++i)
    if (std::find(seen.begin(), seen.end(), i) == seen.end()) rest.push_back(i);
  ASSERT_EQ(rest.size(), 2u);
  std::vector<int64_t> head(first.index.begin(), first.index.begin() + 2);
  std::sort(head.begin(), head.end());
  EXPECT_EQ(head, rest);
  expect_batch(first, first.index, 0);
}

TEST(NDArrayIter, SeveralNamedArraysKeepOrderAndDtype) {
  NDArray x = arange_rows(6, 2);
  NDArray w = nd::arange(100, 106).astype(DType::Int32);
  NDArray y = nd::arange(0, 6);
  NDArrayIter it({{"x", x}, {"w", w}}, {{"y", y}}, 4, false, LastBatchHandle::Pad);
  auto pd = it.provide_data();
  ASSERT_EQ(pd.size(), 2u);
  EXPECT_EQ(pd[0].name, "x");
  EXPECT_EQ(pd[0].shape, Shape({4, 2}));
  EXPECT_EQ(pd[0].dtype, DType::Float32);
  EXPECT_EQ(pd[1].name, "w");
  EXPECT_EQ(pd[1].shape, Shape({4}));
  EXPECT_EQ(pd[1].dtype, DType::Int32);
  auto pl = it.provide_label();
  ASSERT_EQ(pl.size(), 1u);
  EXPECT_EQ(pl[0].name, "y");
  EXPECT_EQ(pl[0].shape, Shape({4}));
  EXPECT_EQ(it.batch_size(), 4);
  EXPECT_EQ(it.num_data(), 6);
  it.next();
  auto b = *it.next();
  EXPECT_EQ(b.pad, 2);
  EXPECT_EQ(b.data[0].to_vector<float>(), expected_rows({4, 5, 0, 1}, 2));
  EXPECT_EQ(b.data[1].dtype(), DType::Int32);
  EXPECT_EQ(b.data[1].to_vector<int32_t>(), (std::vector<int32_t>{104, 105, 100, 101}));
  EXPECT_EQ(b.label[0].to_vector<float>(), (std::vector<float>{4, 5, 0, 1}));
}

TEST(NDArrayIter, ConvenienceConstructorUsesMxnetNames) {
  NDArrayIter it(arange_rows(5, 2), nd::arange(0, 5), 2);
  EXPECT_EQ(it.provide_data()[0].name, "data");
  EXPECT_EQ(it.provide_label()[0].name, "softmax_label");
  NDArrayIter unlabeled(arange_rows(5, 2));
  EXPECT_EQ(unlabeled.batch_size(), 1);
  EXPECT_TRUE(unlabeled.provide_label().empty());
  auto batches = drain(unlabeled);
  ASSERT_EQ(batches.size(), 5u);
  EXPECT_TRUE(batches[4].label.empty());
  EXPECT_EQ(batches[4].data[0].to_vector<float>(), expected_rows({4}, 2));
}

TEST(NDArrayIter, ParsesMxnetSpellings) {
  EXPECT_EQ(io::parse_last_batch_handle("pad"), LastBatchHandle::Pad);
  EXPECT_EQ(io::parse_last_batch_handle("discard"), LastBatchHandle::Discard);
  EXPECT_EQ(io::parse_last_batch_handle("roll_over"), LastBatchHandle::RollOver);
  EXPECT_THROW(io::parse_last_batch_handle("rollover"), Error);
}

TEST(NDArrayIter, RejectsBadInput) {
  const io::NamedInputs none;
  EXPECT_TRUE(throws_mentioning([] { NDArrayIter(arange_rows(10, 2), nd::arange(0, 9), 2); },
                                "'softmax_label' has 9 samples (axis 0 of (9,)) but 'data' has 10"));
  EXPECT_TRUE(throws_mentioning(
      [&] {
        NDArrayIter({{"a", arange_rows(10, 2)}, {"b", arange_rows(8, 2)}}, none, 2);
      },
      "'b' has 8 samples"));
  EXPECT_TRUE(throws_mentioning([] { ten_samples(11, LastBatchHandle::Discard); }, "discard"));
  EXPECT_TRUE(throws_mentioning([] { ten_samples(0, LastBatchHandle::Pad); }, "batch_size"));
  EXPECT_TRUE(throws_mentioning([&] { NDArrayIter(none, none, 2); }, "no data arrays"));
  EXPECT_TRUE(throws_mentioning([&] { NDArrayIter({{"data", NDArray()}}, none, 2); }, "'data' is None"));
  EXPECT_TRUE(throws_mentioning(
      [] {
        NDArrayIter({{"x", arange_rows(4, 1)}}, {{"x", nd::arange(0, 4)}}, 2);
      },
      "'x' is given twice"));
  EXPECT_TRUE(throws_mentioning([&] { NDArrayIter({{"x", nd::zeros(Shape({0, 3}))}}, none, 2); }, "no samples"));
  EXPECT_TRUE(throws_mentioning([&] { NDArrayIter({{"x", nd::ones(Shape({}))}}, none, 2); }, "is a scalar"));
}

}  // namespace
}  // namespace braid::test
