// Samplers: sequential, random (permutation, reproducible, new each epoch), batch modes.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "braid/gluon/data/sampler.h"
#include "braid/ndarray/random.h"

namespace braid::test::gluon_data {
namespace {

using namespace gluon::data;
using Batches = std::vector<std::vector<int64_t>>;

TEST(Sampler, SequentialFromStart) {
  SequentialSampler s(5, 2);
  EXPECT_EQ(s.next_epoch(), (std::vector<int64_t>{2, 3, 4, 5, 6}));
  EXPECT_EQ(s.size(), 5);
}

TEST(Sampler, RandomIsAPermutationReproducibleAndNewEachEpoch) {
  RandomSampler s(100);
  nd::seed(3);
  auto a = s.next_epoch(), b = s.next_epoch();
  std::vector<int64_t> sorted = a, all(100);
  std::sort(sorted.begin(), sorted.end());
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);
  EXPECT_NE(a, all);
  EXPECT_NE(a, b);
  nd::seed(3);
  EXPECT_EQ(s.next_epoch(), a);
  EXPECT_EQ(s.next_epoch(), b);
}

TEST(BatchSampler, KeepAndDiscard) {
  auto seq = std::make_shared<SequentialSampler>(10);
  BatchSampler keep(seq, 3, LastBatch::Keep), discard(seq, 3, LastBatch::Discard);
  EXPECT_EQ(keep.size(), 4);
  EXPECT_EQ(keep.next_epoch(), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}}));
  EXPECT_EQ(discard.size(), 3);
  EXPECT_EQ(discard.next_epoch(), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
  EXPECT_EQ(discard.next_epoch(), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
}

// The sequence MXNet's BatchSampler gives (checked with its Python code).
TEST(BatchSampler, RolloverCarriesLeftoversToTheNextEpoch) {
  BatchSampler b(std::make_shared<SequentialSampler>(10), 3, LastBatch::Rollover);
  EXPECT_EQ(b.size(), 3);
  EXPECT_EQ(b.next_epoch(), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
  EXPECT_EQ(b.size(), 3);
  EXPECT_EQ(b.next_epoch(), (Batches{{9, 0, 1}, {2, 3, 4}, {5, 6, 7}}));
  EXPECT_EQ(b.size(), 4);
  EXPECT_EQ(b.next_epoch(), (Batches{{8, 9, 0}, {1, 2, 3}, {4, 5, 6}, {7, 8, 9}}));
  EXPECT_EQ(b.size(), 3);
  EXPECT_EQ(b.next_epoch(), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
}

TEST(BatchSampler, BadArguments) {
  EXPECT_THROW(BatchSampler(nullptr, 3), Error);
  EXPECT_THROW(BatchSampler(std::make_shared<SequentialSampler>(3), 0), Error);
  EXPECT_EQ(last_batch_from_name("rollover"), LastBatch::Rollover);
  try {
    last_batch_from_name("drop");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'keep', 'discard' or 'rollover'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace braid::test::gluon_data
