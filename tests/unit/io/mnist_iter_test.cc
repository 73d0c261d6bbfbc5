// MNISTIter on the MNIST test set (10000 images, a fixture from MXNet's download): batch counts,
// pixel values against load_idx_images, parts that split the set, shuffling by seed, errors.
#include "braid/io/mnist_iter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "braid/io/idx.h"
#include "iter_test_util.h"

namespace braid::test {
namespace {

using io::MNISTIter;
using io::MNISTIterOptions;

const std::string kImages = std::string(BRAID_FIXTURES_DIR) + "/mnist-t10k-images-idx3-ubyte.gz";
const std::string kLabels = std::string(BRAID_FIXTURES_DIR) + "/mnist-t10k-labels-idx1-ubyte.gz";
constexpr int64_t kPixels = 28 * 28;

MNISTIterOptions options(int64_t batch_size, bool shuffle = false) {
  return MNISTIterOptions{
      .image = kImages, .label = kLabels, .batch_size = batch_size, .shuffle = shuffle, .silent = true};
}

// The whole set, as load_idx reads it: pixels / 255 and labels, sample-major.
struct Reference {
  std::vector<float> pixels = io::load_idx_images(kImages).to_vector<float>();
  std::vector<float> labels = io::load_idx_labels(kLabels).to_vector<float>();

  std::vector<float> image(int64_t i) const {
    auto first = pixels.begin() + i * kPixels;
    return {first, first + kPixels};
  }
};

const Reference& reference() {
  static const Reference r;
  return r;
}

// Every row of every batch equals the reference sample its index names.
void expect_matches_reference(const std::vector<io::DataBatch>& batches) {
  const Reference& ref = reference();
  for (const auto& b : batches) {
    auto pixels = b.data[0].to_vector<float>();
    auto labels = b.label[0].to_vector<float>();
    ASSERT_EQ(pixels.size(), b.index.size() * kPixels);
    for (size_t r = 0; r < b.index.size(); ++r) {
      const int64_t i = b.index[r];
      ASSERT_EQ(labels[r], ref.labels[static_cast<size_t>(i)]) << "sample " << i;
      std::vector<float> row(pixels.begin() + static_cast<int64_t>(r) * kPixels,
                             pixels.begin() + static_cast<int64_t>(r + 1) * kPixels);
      ASSERT_EQ(row, ref.image(i)) << "sample " << i;
    }
  }
}

std::vector<int64_t> all_indices(const std::vector<io::DataBatch>& batches) {
  std::vector<int64_t> out;
  for (const auto& b : batches) out.insert(out.end(), b.index.begin(), b.index.end());
  return out;
}

class MNISTIterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kImages) || !std::filesystem::exists(kLabels))
      GTEST_SKIP() << "MNIST fixtures not found under " << BRAID_FIXTURES_DIR;
  }
};

TEST_F(MNISTIterTest, UnshuffledBatchesAreTheFilesInOrder) {
  MNISTIter it(options(1000));
  EXPECT_EQ(it.num_samples(), 10000);
  EXPECT_EQ(it.batch_size(), 1000);
  auto pd = it.provide_data();
  ASSERT_EQ(pd.size(), 1u);
  EXPECT_EQ(pd[0].name, "data");
  EXPECT_EQ(pd[0].shape, Shape({1000, 1, 28, 28}));
  EXPECT_EQ(pd[0].dtype, DType::Float32);
  auto pl = it.provide_label();
  ASSERT_EQ(pl.size(), 1u);
  EXPECT_EQ(pl[0].name, "softmax_label");
  EXPECT_EQ(pl[0].shape, Shape({1000}));

  auto batches = drain(it);
  ASSERT_EQ(batches.size(), 10u);
  EXPECT_EQ(batches[0].data[0].shape(), Shape({1000, 1, 28, 28}));
  EXPECT_EQ(batches[0].label[0].shape(), Shape({1000}));
  EXPECT_EQ(batches[0].pad, 0);
  std::vector<int64_t> expect(10000);
  std::iota(expect.begin(), expect.end(), 0);
  EXPECT_EQ(all_indices(batches), expect);
  expect_matches_reference(batches);

  // The first image, checked independently of load_idx: the raw bytes of the file's first sample
  // scaled by 1/255 (the test set opens with a 7; pixel (7, 6) is 0x54 = 84 in the file).
  auto first = batches[0].data[0].at(0).to_vector<float>();
  EXPECT_EQ(first[0], 0.0f);
  EXPECT_FLOAT_EQ(first[7 * 28 + 6], 84.0f / 255.0f);
  EXPECT_EQ(batches[0].label[0].to_vector<float>()[0], 7.0f);

  it.reset();
  auto again = drain(it);
  ASSERT_EQ(again.size(), 10u);
  EXPECT_EQ(all_indices(again), expect);
}

TEST_F(MNISTIterTest, FlatGivesRowsOf784) {
  auto o = options(500);
  o.flat = true;
  o.data_name = "x";
  o.label_name = "y";
  MNISTIter it(o);
  EXPECT_EQ(it.provide_data()[0].shape, Shape({500, kPixels}));
  EXPECT_EQ(it.provide_data()[0].name, "x");
  EXPECT_EQ(it.provide_label()[0].name, "y");
  auto b = *it.next();
  EXPECT_EQ(b.data[0].shape(), Shape({500, kPixels}));
  expect_matches_reference({b});
}

TEST_F(MNISTIterTest, IncompleteLastBatchIsDropped) {
  for (int64_t bs : {128, 3000, 10000}) {
    MNISTIter it(options(bs));
    EXPECT_EQ(static_cast<int64_t>(drain(it).size()), 10000 / bs) << "batch_size " << bs;
  }
  MNISTIter too_big(options(10001));
  EXPECT_FALSE(too_big.next());
}

TEST_F(MNISTIterTest, PartsAreContiguousDisjointAndCoverTheSet) {
  for (int num_parts : {1, 3, 7}) {
    std::vector<int64_t> seen;
    for (int part = 0; part < num_parts; ++part) {
      SCOPED_TRACE(testing::Message() << "part " << part << " of " << num_parts);
      auto o = options(128, /*shuffle=*/true);
      o.num_parts = num_parts;
      o.part_index = part;
      MNISTIter it(o);
      const int64_t begin = 10000 * part / num_parts, end = 10000 * (part + 1) / num_parts;
      EXPECT_EQ(it.num_samples(), end - begin);
      auto batches = drain(it);
      EXPECT_EQ(static_cast<int64_t>(batches.size()), (end - begin) / 128);
      EXPECT_EQ(static_cast<int64_t>(batches.size()), 10000 / num_parts / 128);
      expect_matches_reference(batches);
      for (int64_t i : all_indices(batches)) {
        EXPECT_GE(i, begin);
        EXPECT_LT(i, end);
      }
      // batch_size 1 drops nothing: the part is exactly [begin, end).
      o.batch_size = 1;
      MNISTIter whole(o);
      auto part_indices = all_indices(drain(whole));
      std::sort(part_indices.begin(), part_indices.end());
      std::vector<int64_t> expect(static_cast<size_t>(end - begin));
      std::iota(expect.begin(), expect.end(), begin);
      EXPECT_EQ(part_indices, expect);
      seen.insert(seen.end(), part_indices.begin(), part_indices.end());
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> all(10000);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(seen, all) << num_parts << " parts";
  }
}

TEST_F(MNISTIterTest, ShuffleOnceBySeed) {
  auto o = options(100, /*shuffle=*/true);
  o.seed = 11;
  MNISTIter a(o), b(o);
  auto ea = drain(a), eb = drain(b);
  EXPECT_EQ(all_indices(ea), all_indices(eb));
  EXPECT_EQ(ea[3].data[0].to_vector<float>(), eb[3].data[0].to_vector<float>());
  expect_matches_reference(ea);

  std::vector<int64_t> sorted = all_indices(ea);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(10000);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);
  EXPECT_NE(all_indices(ea), all);

  a.reset();  // no reshuffle: the same order every epoch
  EXPECT_EQ(all_indices(drain(a)), all_indices(ea));

  o.seed = 12;
  MNISTIter c(o);
  EXPECT_NE(all_indices(drain(c)), all_indices(ea));
}

TEST_F(MNISTIterTest, ClearErrors) {
  auto missing = options(10);
  missing.image = "/nonexistent/train-images-idx3-ubyte";
  EXPECT_TRUE(throws_mentioning([&] { MNISTIter{missing}; }, "/nonexistent/train-images-idx3-ubyte' does not exist"));
  auto missing_label = options(10);
  missing_label.label = "/nonexistent/labels";
  EXPECT_TRUE(throws_mentioning([&] { MNISTIter{missing_label}; }, "label file '/nonexistent/labels"));
  auto swapped = options(10);
  swapped.label = kImages;
  EXPECT_TRUE(throws_mentioning([&] { MNISTIter{swapped}; }, "cannot read the label file"));
  auto part = options(10);
  part.num_parts = 2;
  part.part_index = 2;
  EXPECT_TRUE(throws_mentioning([&] { MNISTIter{part}; }, "part_index 2 is outside [0, num_parts)"));
  part.part_index = -1;
  EXPECT_TRUE(throws_mentioning([&] { MNISTIter{part}; }, "part_index -1"));
  EXPECT_TRUE(throws_mentioning([&] { MNISTIter{options(0)}; }, "batch_size must be positive"));

  // A label file of another length (an uncompressed IDX1 file of 5 labels).
  auto dir = std::filesystem::path(::testing::TempDir()) / "braid_io_mnist_iter_errors";
  std::filesystem::create_directories(dir);
  const std::string five = (dir / "five-labels-idx1-ubyte").string();
  {
    std::ofstream f(five, std::ios::binary);
    const unsigned char bytes[] = {0, 0, 8, 1, 0, 0, 0, 5, 1, 2, 3, 4, 5};
    f.write(reinterpret_cast<const char*>(bytes), sizeof bytes);
  }
  auto short_labels = options(10);
  short_labels.label = five;
  EXPECT_TRUE(throws_mentioning([&] { MNISTIter{short_labels}; }, "holds 10000 images but the label file"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace braid::test
