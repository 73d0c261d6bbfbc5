// gluon::utils: split_data's slice sizes (MXNet's: the first slices take the extra samples),
// split_and_load's contexts, clip_global_norm against the norm computed by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/base/error.h"
#include "braid/gluon/utils.h"
#include "braid/ndarray/creation.h"

namespace braid::gluon::utils {
namespace {

NDArray iota(const Shape& s) {
  std::vector<float> v(static_cast<size_t>(s.size()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return nd::array<float>(v, s);
}

TEST(GluonUtils, SplitDataLikeMxnet) {
  auto parts = split_data(iota(Shape{7, 2}), 3, 0, false);  // 7 = 3 + 2 + 2
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(parts[1].shape(), (Shape{2, 2}));
  EXPECT_EQ(parts[2].to_vector<float>(), (std::vector<float>{10, 11, 12, 13}));
  auto cols = split_data(iota(Shape{2, 4}), 2, 1);
  EXPECT_EQ(cols[1].to_vector<float>(), (std::vector<float>{2, 3, 6, 7}));
  EXPECT_THROW(split_data(iota(Shape{7, 2}), 3), Error);            // not even
  EXPECT_THROW(split_data(iota(Shape{2, 2}), 3, 0, false), Error);  // more slices than samples
}

TEST(GluonUtils, SplitAndLoadPutsEachSliceOnItsContext) {
  auto parts = split_and_load(iota(Shape{4, 3}), {cpu(0), cpu(1)});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].ctx(), cpu(1));
  EXPECT_EQ(parts[1].to_vector<float>(), (std::vector<float>{6, 7, 8, 9, 10, 11}));
  auto one = split_and_load(iota(Shape{4, 3}), {cpu(2)});
  EXPECT_EQ(one[0].ctx(), cpu(2));
  EXPECT_EQ(one[0].shape(), (Shape{4, 3}));
}

TEST(GluonUtils, ClipGlobalNormScalesAllArraysTogether) {
  std::vector<NDArray> a = {nd::array({3, 4}, Shape{2}), nd::array({12}, Shape{1}, cpu(1))};  // norm 13
  EXPECT_NEAR(clip_global_norm(a, 6.5), 13.0, 1e-5);
  EXPECT_NEAR(a[0].to_vector<float>()[0], 1.5f, 1e-5);
  EXPECT_NEAR(a[1].to_vector<float>()[0], 6.0f, 1e-5);
  EXPECT_NEAR(clip_global_norm(a, 100), 6.5, 1e-5);  // below max_norm: unchanged
  EXPECT_NEAR(a[1].to_vector<float>()[0], 6.0f, 1e-5);
}

}  // namespace
}  // namespace braid::gluon::utils
