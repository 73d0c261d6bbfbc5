// Datasets: ArrayDataset views, transform / transform_first, shard, take, filter, get_batch.
#include <gtest/gtest.h>

#include <atomic>

#include "braid/gluon/data/dataset.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "data_test_util.h"

namespace braid::test::gluon_data {
namespace {

using namespace gluon::data;

// 10 samples: data row i = (3i, 3i + 1, 3i + 2), label i = 100 + i.
std::shared_ptr<ArrayDataset> ten() {
  return std::make_shared<ArrayDataset>(nd::arange(0, 30).reshape({10, 3}), nd::arange(100, 110));
}

std::vector<int64_t> labels_of(const Dataset& d) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < d.size(); ++i) out.push_back(d.get(i)[1].scalar<int64_t>());
  return out;
}

TEST(ArrayDataset, SamplesAreViewsAlongAxis0) {
  NDArray data = nd::arange(0, 30).reshape({10, 3});
  auto ds = std::make_shared<ArrayDataset>(data, nd::arange(100, 110));
  EXPECT_EQ(ds->size(), 10);
  Sample s = ds->get(2);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].shape(), Shape({3}));
  EXPECT_EQ(s[1].shape(), Shape({}));  // a 1-D array gives 0-d labels
  EXPECT_EQ(s[0].to_vector<float>(), (std::vector<float>{6, 7, 8}));
  EXPECT_EQ(s[1].scalar<float>(), 102.f);
  data += 1.0;  // zero-copy: the sample sees the change
  EXPECT_EQ(s[0].to_vector<float>(), (std::vector<float>{7, 8, 9}));
  EXPECT_THROW(ds->get(10), Error);
  EXPECT_THROW(ds->get(-1), Error);
}

TEST(ArrayDataset, LengthsMustAgree) {
  try {
    ArrayDataset(nd::zeros(Shape({4, 2})), nd::zeros(Shape({5})));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("same length"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ArrayDataset(std::vector<NDArray>{}), Error);
}

TEST(ArrayDataset, GetBatchEqualsStackedSamples) {
  auto ds = ten();
  std::vector<int64_t> idx = {7, 2, 2, 9};
  std::vector<Sample> samples;
  for (int64_t i : idx) samples.push_back(ds->get(i));
  expect_same(ds->get_batch(idx), default_batchify(samples));
  EXPECT_EQ(ds->get_batch(idx)[1].shape(), Shape({4}));
}

TEST(Dataset, TransformFirstChangesOnlyTheFirstField) {
  auto ds = ten()->transform_first([](const NDArray& x) { return x * 10.0; });
  Sample s = ds->get(1);
  EXPECT_EQ(s[0].to_vector<float>(), (std::vector<float>{30, 40, 50}));
  EXPECT_EQ(s[1].scalar<float>(), 101.f);
  EXPECT_EQ(ds->size(), 10);
}

TEST(Dataset, TransformSeesTheWholeSampleAndLazyFalseRunsOnce) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  SampleFn swap = [calls](const Sample& s) {
    ++*calls;
    return Sample{s[1], s[0]};
  };
  auto lazy = ten()->transform(swap);
  EXPECT_EQ(*calls, 0);
  EXPECT_EQ(lazy->get(3)[0].scalar<float>(), 103.f);
  EXPECT_EQ(*calls, 1);
  auto eager = ten()->transform(swap, false);
  EXPECT_EQ(*calls, 11);
  EXPECT_EQ(eager->get(4)[1].to_vector<float>(), (std::vector<float>{12, 13, 14}));
  eager->get(4);
  EXPECT_EQ(*calls, 11);
}

TEST(Dataset, BatchedTransformFirstEqualsPerSample) {
  // 6 images 2 x 2 x 1 with distinct values.
  NDArray images = nd::arange(0, 24).reshape({6, 2, 2, 1}).astype(DType::UInt8);
  auto ds = std::make_shared<ArrayDataset>(images, nd::arange(0, 6));
  namespace tf = vision::transforms;
  for (const Transform& t :
       {Transform(), Transform(tf::ToTensor()), Transform(tf::Compose({tf::ToTensor(), tf::Normalize({0.5}, {2.0})})),
        Transform(tf::Compose({[](const NDArray& x) { return x; }, tf::ToTensor()}))}) {
    auto td = ds->transform_first(t);
    std::vector<int64_t> idx = {5, 0, 3};
    std::vector<Sample> samples;
    for (int64_t i : idx) samples.push_back(td->get(i));
    expect_same(td->get_batch(idx), default_batchify(samples));
  }
}

TEST(Dataset, ShardSplitsEvenlyWithTheRemainderFirst) {
  auto ds = ten();
  std::vector<int64_t> all;
  std::vector<int64_t> sizes;
  for (int64_t k = 0; k < 3; ++k) {
    auto part = ds->shard(3, k);
    sizes.push_back(part->size());
    auto l = labels_of(*part);
    all.insert(all.end(), l.begin(), l.end());
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 3, 3}));
  EXPECT_EQ(all, (std::vector<int64_t>{100, 101, 102, 103, 104, 105, 106, 107, 108, 109}));
  EXPECT_EQ(labels_of(*ds->split(4, 3)), (std::vector<int64_t>{108, 109}));
  EXPECT_EQ(ds->take(2)->shard(3, 2)->size(), 0);
  EXPECT_THROW(ds->shard(3, 3), Error);
  EXPECT_THROW(ds->shard(0, 0), Error);
  // A shard's batches come from the source's batches.
  expect_same(ds->shard(3, 1)->get_batch({0, 2}), ds->get_batch({4, 6}));
}

TEST(Dataset, TakeAndFilter) {
  auto ds = ten();
  EXPECT_EQ(labels_of(*ds->take(3)), (std::vector<int64_t>{100, 101, 102}));
  EXPECT_EQ(ds->take(50)->size(), 10);
  auto odd = ds->filter([](const Sample& s) { return s[1].scalar<int64_t>() % 2 == 1; });
  EXPECT_EQ(labels_of(*odd), (std::vector<int64_t>{101, 103, 105, 107, 109}));
}

TEST(Dataset, SimpleDatasetAndOwnershipError) {
  auto ds = std::make_shared<SimpleDataset>(std::vector<Sample>{{nd::array({1.f})}, {nd::array({2.f})}});
  EXPECT_EQ(ds->size(), 2);
  EXPECT_EQ(ds->get(1)[0].scalar<float>(), 2.f);
  SimpleDataset on_stack({{nd::array({1.f})}});
  try {
    on_stack.shard(1, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("make_shared"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace braid::test::gluon_data
