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

TEST(ShapeOverflow, ArrayBytesOverflowIsRefusedBeforeAllocating) {
  EXPECT_EQ(test::error_message([] { NDArray(Shape({int64_t{1} << 62}), cpu(), DType::Float32); }),
            "cannot create an array of shape (4611686018427387904,) of float32: the dimension arithmetic "
            "4611686018427387904 x 4 overflows int64");
}

}  // namespace
}  // namespace braid
