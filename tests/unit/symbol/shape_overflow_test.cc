// Graph shape inference never lets a shape overflow: attributes a model file may set to anything
// (num_hidden, reshape targets, repeats, pads) that would wrap a dimension or an element count
// around int64 are an error naming the node, its op and the shapes, instead of a shape like
// (20, -8070450639622111132).
#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/symbol.h"
#include "common/error_message.h"

namespace braid {
namespace {

std::string infer_error(const Symbol& s, const std::map<std::string, Shape>& known) {
  return test::error_message([&] { s.infer_shape_partial(known); });
}

TEST(ShapeOverflow, FullyConnectedWeightTooLargeToCount) {
  Symbol fc = sym::make("FullyConnected", {Symbol::Variable("data")}, {{"num_hidden", "4611686018427387904"}}, "fc");
  EXPECT_EQ(infer_error(fc, {{"data", Shape({20, 10})}}),
            "shape inference failed at node 'fc' (FullyConnected): input 1: shape (4611686018427387904, 10) has more "
            "elements than int64 can count (input shapes: (20, 10), ?, ?)");
}

// (2^33 + 1)^2 wraps around to exactly the input's size: this reshape used to be accepted.
TEST(ShapeOverflow, ReshapeWrappingToTheInputSize) {
  Symbol r = sym::make("Reshape", {Symbol::Variable("data")}, {{"shape", "(8589934593, 8589934593, -1)"}}, "r");
  EXPECT_EQ(infer_error(r, {{"data", Shape({17179869185})}}),
            "shape inference failed at node 'r' (Reshape): operator Reshape: cannot reshape (17179869185,) with "
            "(8589934593, 8589934593, "
            "-1): the dimension arithmetic 8589934593 x 8589934593 overflows int64 (input shapes: (17179869185,))");
}

TEST(ShapeOverflow, ConcatSum) {
  Symbol c = sym::make("Concat", {Symbol::Variable("a"), Symbol::Variable("b")}, {{"dim", "1"}}, "c");
  const Shape half({1, int64_t{1} << 62});
  EXPECT_EQ(
      infer_error(c, {{"a", half}, {"b", half}}),
      "shape inference failed at node 'c' (Concat): operator concat: the dimension arithmetic 4611686018427387904 + "
      "4611686018427387904 overflows int64 (input shapes: (1, 4611686018427387904), (1, 4611686018427387904))");
}

TEST(ShapeOverflow, TileRepeats) {
  Symbol t = sym::make("tile", {Symbol::Variable("data")}, {{"reps", "(4611686018427387904, 1)"}}, "t");
  EXPECT_EQ(infer_error(t, {{"data", Shape({2, 3})}}),
            "shape inference failed at node 't' (tile): operator tile: the dimension arithmetic 2 x "
            "4611686018427387904 overflows "
            "int64 (input shapes: (2, 3))");
}

TEST(ShapeOverflow, BroadcastOutputTooLargeToCount) {
  Symbol b = sym::make("broadcast_to", {Symbol::Variable("data")}, {{"shape", "(4611686018427387904, 4)"}}, "b");
  EXPECT_EQ(infer_error(b, {{"data", Shape({1, 1})}}),
            "shape inference failed at node 'b' (broadcast_to): output 0: shape (4611686018427387904, 4) has more "
            "elements than int64 can count (input shapes: (1, 1))");
}

TEST(ShapeOverflow, ConvolutionPadIsCheckedWhenParsed) {
  auto make = [] {
    sym::make("Convolution", {Symbol::Variable("data")},
              {{"kernel", "(3, 3)"}, {"pad", "(4611686018427387904, 0)"}, {"num_filter", "4"}}, "conv");
  };
  EXPECT_EQ(test::error_message(make),
            "node 'conv' (Convolution): operator Convolution: kernel=(3, 3), dilate=(1, 1), pad=(4611686018427387904, "
            "0): the dimension arithmetic 2 x 4611686018427387904 overflows int64");
}

}  // namespace
}  // namespace braid
