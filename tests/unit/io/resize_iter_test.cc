// ResizeIter: epochs of exactly `size` batches across inner epochs, with and without resetting
// the inner iterator, descriptions passed through, errors.
#include "braid/io/resize_iter.h"

#include <gtest/gtest.h>

#include "braid/io/ndarray_iter.h"
#include "iter_test_util.h"

namespace braid::test {
namespace {

using io::ResizeIter;

// 10 samples in batches of 4, the incomplete one dropped: first indices 0, 4 per inner epoch.
std::shared_ptr<io::NDArrayIter> two_batches() {
  return std::make_shared<io::NDArrayIter>(arange_rows(10, 2), nd::arange(0, 10), 4, false,
                                           io::LastBatchHandle::Discard);
}

TEST(ResizeIter, LongerEpochsResetTheInnerIterator) {
  ResizeIter it(two_batches(), 5);
  EXPECT_EQ(it.size(), 5);
  auto batches = drain(it);
  EXPECT_EQ(first_indices(batches), (std::vector<int64_t>{0, 4, 0, 4, 0}));
  EXPECT_EQ(batches[3].data[0].to_vector<float>(), expected_rows({4, 5, 6, 7}, 2));
  EXPECT_EQ(batches[3].label[0].to_vector<float>(), expected_rows({4, 5, 6, 7}, 1));
  EXPECT_FALSE(it.next());
  it.reset();
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{0, 4, 0, 4, 0}));
}

TEST(ResizeIter, ShorterEpochsStopInsideTheInnerOne) {
  auto inner = std::make_shared<io::NDArrayIter>(arange_rows(12, 1), NDArray(), 2);
  ResizeIter it(inner, 2);
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{0, 2}));
  it.reset();
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{0, 2}));
}

TEST(ResizeIter, WithoutResetInternalTheInnerIteratorGoesOn) {
  ResizeIter it(two_batches(), 3, /*reset_internal=*/false);
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{0, 4, 0}));
  it.reset();
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{4, 0, 4}));
  it.reset();
  EXPECT_EQ(first_indices(drain(it)), (std::vector<int64_t>{0, 4, 0}));
}

TEST(ResizeIter, PassesDescriptionsThrough) {
  ResizeIter it(two_batches(), 1);
  EXPECT_EQ(it.batch_size(), 4);
  ASSERT_EQ(it.provide_data().size(), 1u);
  EXPECT_EQ(it.provide_data()[0].name, "data");
  EXPECT_EQ(it.provide_data()[0].shape, Shape({4, 2}));
  ASSERT_EQ(it.provide_label().size(), 1u);
  EXPECT_EQ(it.provide_label()[0].name, "softmax_label");
  ResizeIter empty(two_batches(), 0);
  EXPECT_FALSE(empty.next());
}

// An iterator whose epochs are empty.
class NeverYields : public io::DataIter {
 public:
  std::optional<io::DataBatch> next() override { return std::nullopt; }
  void reset() override {}
  std::vector<io::DataDesc> provide_data() const override { return {}; }
  std::vector<io::DataDesc> provide_label() const override { return {}; }
  int64_t batch_size() const override { return 1; }
};

TEST(ResizeIter, Errors) {
  EXPECT_TRUE(throws_mentioning([] { ResizeIter(nullptr, 3); }, "inner iterator is null"));
  EXPECT_TRUE(throws_mentioning([] { ResizeIter(two_batches(), -1); }, "must not be negative"));
  ResizeIter it(std::make_shared<NeverYields>(), 3);
  EXPECT_TRUE(throws_mentioning([&] { it.next(); }, "yields no batch even right after reset()"));
}

}  // namespace
}  // namespace braid::test
