// Imperative calls and allocations never use a shape whose size overflowed: an op whose output
// could not be counted used to allocate a wrapped-around size and write past it.
#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "common/error_message.h"

namespace braid {
namespace {

TEST(ShapeOverflow, OpOutputTooLargeToCountIsRefused) {
  NDArray x = nd::ones(Shape({1, 1}));
  EXPECT_EQ(test::error_message([&] {
              nd::invoke("broadcast_to", {x}, {{"shape", "(4611686018427387904, 4)"}});
            }),
            "operator broadcast_to: output 0: shape (4611686018427387904, 4) has more elements than int64 can count");
}

TEST(ShapeOverflow, OpDimensionArithmeticNamesTheOp) {
  NDArray x = nd::ones(Shape({2, 3}));
  EXPECT_EQ(test::error_message([&] {
              nd::invoke("tile", {x}, {{"reps", "(4611686018427387904, 1)"}});
            }),
            "operator tile: the dimension arithmetic 2 x 4611686018427387904 overflows int64");
  EXPECT_EQ(test::error_message([&] {
              nd::invoke("repeat", {x}, {{"repeats", "4611686018427387904"}});
            }),
            "operator repeat: the dimension arithmetic 6 x 4611686018427387904 overflows int64");
}

TEST(ShapeOverflow, ArrayBytesOverflowIsRefusedBeforeAllocating) {
  EXPECT_EQ(test::error_message([] { NDArray(Shape({int64_t{1} << 62}), cpu(), DType::Float32); }),
            "cannot create an array of shape (4611686018427387904,) of float32: the dimension arithmetic "
            "4611686018427387904 x 4 overflows int64");
}

}  // namespace
}  // namespace braid
