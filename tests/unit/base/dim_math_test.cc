// Dimension arithmetic refuses to overflow: element counts, products of dims and reshape codes
// are errors that name the shapes instead of wrapping around to a wrong (or negative) size.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "braid/base/dim_math.h"
#include "braid/base/error.h"
#include "braid/base/reshape.h"
#include "common/error_message.h"

namespace braid {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
const int64_t k2to62 = int64_t{1} << 62;

TEST(DimMath, ProductsAndSumsThatFitAreExact) {
  EXPECT_EQ(mul_dims(k2to62, 1), k2to62);
  EXPECT_EQ(add_dims(kMax - 1, 1), kMax);
  EXPECT_EQ(Shape({k2to62, 1, 1}).size(), k2to62);
}

TEST(DimMath, OverflowIsAnError) {
  EXPECT_EQ(test::error_message([] { mul_dims(k2to62, 2); }),
            "the dimension arithmetic 4611686018427387904 x 2 overflows int64");
  EXPECT_EQ(test::error_message([] { add_dims(kMax, 1); }),
            "the dimension arithmetic 9223372036854775807 + 1 overflows int64");
  EXPECT_EQ(test::error_message([] { mul_dims(k2to62, 2, "tile"); }),
            "operator tile: the dimension arithmetic 4611686018427387904 x 2 overflows int64");
}

TEST(DimMath, ShapeSizeOverflowNamesTheShape) {
  EXPECT_EQ(test::error_message([] {
              Shape({20, k2to62}).size();
            }),
            "shape (20, 4611686018427387904) has more elements than int64 can count");
  EXPECT_EQ(test::error_message([] {
              Shape({4, 3, k2to62}).prod(1, 3);
            }),
            "shape (4, 3, 4611686018427387904) has more elements than int64 can count");
}

// A 0 dimension makes the count 0 however large the others are.
TEST(DimMath, ZeroDimensionCountsZero) { EXPECT_EQ(Shape({k2to62, k2to62, 0}).size(), 0); }

TEST(DimMath, CheckShapeRefusesNegativeAndUncountableShapes) {
  check_shape(Shape({2, 3}), "output 0");
  EXPECT_EQ(test::error_message([] {
              check_shape(Shape({20, -8070450639622111132}), "output 0");
            }),
            "output 0 has shape (20, -8070450639622111132), with a negative dimension");
  EXPECT_EQ(test::error_message([] {
              check_shape(Shape({20, k2to62}), "output 0");
            }),
            "output 0: shape (20, 4611686018427387904) has more elements than int64 can count");
}

// (2^33 + 1)^2 wraps around to exactly the input's size: without checks this reshape was accepted.
TEST(DimMath, ReshapeProductsAreChecked) {
  EXPECT_EQ(test::error_message([] {
              infer_reshape(Shape({17179869185}), {8589934593, 8589934593, -1});
            }),
            "cannot reshape (17179869185,) with (8589934593, 8589934593, -1): the dimension arithmetic 8589934593 x "
            "8589934593 overflows int64");
  EXPECT_EQ(
      test::error_message([] {
        infer_reshape(Shape({k2to62, 4, 1}), {-3, -2});
      }),
      "cannot reshape (4611686018427387904, 4, 1) with (-3, -2): the dimension arithmetic 4611686018427387904 x 4 "
      "overflows int64");
}

}  // namespace
}  // namespace braid
