// Image transforms and the image operators behind them: exact values against hand-computed ones.
#include <gtest/gtest.h>

#include <set>

#include "braid/gluon/data/random.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "braid/ndarray/random.h"
#include "data_test_util.h"

namespace braid::test::gluon_data {
namespace {

namespace tf = gluon::data::vision::transforms;
using gluon::data::RandomScope;
using gluon::data::Transform;

TEST(ToTensor, HwcUint8ToChwFloatOver255) {
  // A 2 x 3 image with 2 channels: pixel (h, w) holds (10 * (3h + w), 255 - that).
  std::vector<int32_t> v;
  for (int p = 0; p < 6; ++p) v.insert(v.end(), {10 * p, 255 - 10 * p});
  NDArray y = tf::ToTensor()(u8(v, Shape({2, 3, 2})));
  ASSERT_EQ(y.shape(), Shape({2, 2, 3}));
  ASSERT_EQ(y.dtype(), DType::Float32);
  std::vector<float> expect;
  for (int c = 0; c < 2; ++c)
    for (int p = 0; p < 6; ++p) expect.push_back(static_cast<float>(c == 0 ? 10 * p : 255 - 10 * p) / 255.0f);
  EXPECT_EQ(y.to_vector<float>(), expect);
}

TEST(ToTensor, BatchEqualsStackedSamples) {
  std::vector<int32_t> v(2 * 4 * 3 * 3);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>((i * 37) % 256);
  NDArray batch = u8(v, Shape({2, 4, 3, 3}));
  tf::ToTensor t;
  ASSERT_TRUE(t.batchable());
  NDArray whole = t.batch(batch);
  EXPECT_EQ(whole.shape(), Shape({2, 3, 4, 3}));
  expect_same(whole, nd::stack({t(batch.at(0)), t(batch.at(1))}, 0));
}

TEST(Normalize, PerChannelAndBroadcast) {
  NDArray x = nd::array({0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f}, Shape({2, 2, 2}));
  NDArray y = tf::Normalize({0.5, 1.0}, {0.25, 2.0})(x);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-2.f, 2.f, 6.f, 10.f, 1.5f, 2.f, 2.5f, 3.f}));
  NDArray z = tf::Normalize({1.0}, {2.0})(x);
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{-0.5f, 0.f, 0.5f, 1.f, 1.5f, 2.f, 2.5f, 3.f}));
  // A batch (N, C, H, W) normalizes each image the same way.
  NDArray b = tf::Normalize({0.5, 1.0}, {0.25, 2.0}).batch(nd::stack({x, x}, 0));
  expect_same(b, nd::stack({y, y}, 0));
}

TEST(Normalize, WrongChannelCountAndIntegerInputAreErrors) {
  NDArray x = nd::zeros(Shape({3, 2, 2}));
  try {
    tf::Normalize({0.1, 0.2}, {1.0})(x);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("one value or one per channel"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tf::Normalize({0.0}, {0.0}), Error);  // a zero std
  EXPECT_THROW(tf::Normalize()(u8({1, 2, 3, 4}, Shape({1, 2, 2}))), Error);
}

TEST(Flip, ReversesWidthOfImagesAndBatches) {
  NDArray img = u8({1, 2, 3, 4, 5, 6}, Shape({2, 3, 1}));
  EXPECT_EQ(nd::invoke1("_image_flip_left_right", {img}).to_vector<int32_t>(),
            (std::vector<int32_t>{3, 2, 1, 6, 5, 4}));
  // Channels stay together: (1, 2, 2) with pixels (1, 2) and (3, 4).
  NDArray rgb = u8({1, 2, 3, 4}, Shape({1, 2, 2}));
  EXPECT_EQ(nd::invoke1("_image_flip_left_right", {rgb}).to_vector<int32_t>(), (std::vector<int32_t>{3, 4, 1, 2}));
  NDArray batch = nd::stack({img, img}, 0);
  EXPECT_EQ(nd::invoke1("_image_flip_left_right", {batch}).to_vector<int32_t>(),
            (std::vector<int32_t>{3, 2, 1, 6, 5, 4, 3, 2, 1, 6, 5, 4}));
}

TEST(Crop, WindowInsideTheImage) {
  NDArray img = u8({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({3, 3, 1}));
  NDArray c = nd::invoke1("_image_crop", {img}, {{"x", "1"}, {"y", "0"}, {"width", "2"}, {"height", "2"}});
  EXPECT_EQ(c.shape(), Shape({2, 2, 1}));
  EXPECT_EQ(c.to_vector<int32_t>(), (std::vector<int32_t>{2, 3, 5, 6}));
  EXPECT_THROW(nd::invoke1("_image_crop", {img}, {{"x", "2"}, {"y", "0"}, {"width", "2"}, {"height", "2"}}), Error);
}

TEST(Crop, PaddedWindowFillsOutsidePixels) {
  NDArray img = u8({1, 2, 3, 4}, Shape({2, 2, 1}));
  NDArray c = nd::invoke1("_image_padded_crop", {img},
                          {{"x", "-1"}, {"y", "-1"}, {"width", "3"}, {"height", "3"}, {"pad_value", "9"}});
  EXPECT_EQ(c.to_vector<int32_t>(), (std::vector<int32_t>{9, 9, 9, 9, 1, 2, 9, 3, 4}));
  NDArray far = nd::invoke1("_image_padded_crop", {img}, {{"x", "5"}, {"y", "0"}, {"width", "1"}, {"height", "1"}});
  EXPECT_EQ(far.to_vector<int32_t>(), (std::vector<int32_t>{0}));
}

// The 2 x 2 image [[1, 2], [3, 4]] padded by 1 is a 4 x 4 image; a 2 x 2 window has 9 positions.
TEST(RandomCrop, WithPadGivesEveryWindowOfThePaddedImage) {
  NDArray img = u8({1, 2, 3, 4}, Shape({2, 2, 1}));
  const int padded[4][4] = {{0, 0, 0, 0}, {0, 1, 2, 0}, {0, 3, 4, 0}, {0, 0, 0, 0}};
  std::set<std::vector<int32_t>> windows, seen;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x)
      windows.insert({padded[y][x], padded[y][x + 1], padded[y + 1][x], padded[y + 1][x + 1]});
  tf::RandomCrop crop(2, 1);
  for (uint64_t s = 0; s < 200; ++s) {
    RandomScope scope(s);
    NDArray w = crop(img);
    ASSERT_EQ(w.shape(), Shape({2, 2, 1}));
    seen.insert(w.to_vector<int32_t>());
  }
  EXPECT_EQ(seen, windows);
  EXPECT_THROW(tf::RandomCrop(5, 1)(img), Error);  // 5 x 5 does not fit 4 x 4
}

TEST(RandomCrop, RectangularSizeIsWidthThenHeight) {
  NDArray img = nd::zeros(Shape({4, 6, 3}), cpu(), DType::UInt8);
  NDArray w = tf::RandomCrop({5, 2}, {0, 0, 0, 0})(img);
  EXPECT_EQ(w.shape(), Shape({2, 5, 3}));
}

TEST(RandomFlipLeftRight, ReproducibleUnderSeedAndBothOutcomesOccur) {
  NDArray img = u8({1, 2, 3}, Shape({1, 3, 1}));
  auto run = [&] {
    std::vector<std::vector<int32_t>> out;
    for (int i = 0; i < 24; ++i) out.push_back(tf::RandomFlipLeftRight()(img).to_vector<int32_t>());
    return out;
  };
  nd::seed(11);
  auto a = run();
  nd::seed(11);
  EXPECT_EQ(run(), a);
  std::set<std::vector<int32_t>> outcomes(a.begin(), a.end());
  EXPECT_EQ(outcomes, (std::set<std::vector<int32_t>>{{1, 2, 3}, {3, 2, 1}}));
}

TEST(Cast, ChangesDtypeKeepsValues) {
  NDArray y = tf::Cast(DType::Float64)(u8({0, 7, 255}, Shape({3})));
  EXPECT_EQ(y.dtype(), DType::Float64);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0, 7, 255}));
}

TEST(Compose, AppliesInOrderAndSplitsTheBatchableSuffix) {
  NDArray img = u8({0, 51, 102, 255}, Shape({2, 2, 1}));
  tf::Compose c({tf::ToTensor(), tf::Normalize({0.5}, {0.5})});
  EXPECT_TRUE(c.batchable());
  std::vector<float> expect;
  for (int v : {0, 51, 102, 255}) expect.push_back((static_cast<float>(v) / 255.0f - 0.5f) / 0.5f);
  EXPECT_EQ(c(img).to_vector<float>(), expect);

  tf::Compose random({tf::RandomFlipLeftRight(), tf::ToTensor(), tf::Normalize({0.5}, {0.5})});
  EXPECT_FALSE(random.batchable());
  auto [prefix, suffix] = random.split_batchable();
  EXPECT_FALSE(prefix.empty());
  EXPECT_TRUE(suffix.batchable());
  EXPECT_THROW(random.batch(nd::stack({img, img}, 0)), Error);
  // A lambda is a transform too (per sample only).
  Transform twice = [](const NDArray& x) { return x * 2.0; };
  EXPECT_FALSE(twice.batchable());
  EXPECT_EQ(twice(nd::array({1.f, 2.f})).to_vector<float>(), (std::vector<float>{2.f, 4.f}));
}

}  // namespace
}  // namespace braid::test::gluon_data
