// NumPy shape semantics (MXNet's mx.np_shape()): imperative calls read a 0 in an array's shape as
// an empty extent in either mode, as MXNet does since 1.6; in graphs, 0 stands for "unknown" by
// default and for "empty" under np_shape, where -1 is the unknown extent.
#include <gtest/gtest.h>

#include <thread>

#include "braid/base/np_shape.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/symbol.h"

namespace braid {
namespace {

// Turns NumPy shape semantics on for the calling thread while it lives.
struct NumpyShapes {
  NumpyShapes() { set_np_shape(1); }
  ~NumpyShapes() { set_np_shape(0); }
};

TEST(NumpyShape, TheSwitchIsPerThreadUnlessGlobal) {
  EXPECT_FALSE(np_shape());
  set_np_shape(1);
  bool other_thread = true;
  std::thread([&] { other_thread = np_shape(); }).join();
  EXPECT_TRUE(np_shape());
  EXPECT_FALSE(other_thread);
  set_np_shape(2);
  std::thread([&] { other_thread = np_shape(); }).join();
  EXPECT_TRUE(other_thread);
  set_np_shape(0);
  std::thread([&] { other_thread = np_shape(); }).join();
  EXPECT_FALSE(np_shape());
  EXPECT_FALSE(other_thread);
}

TEST(NumpyShape, ImperativeCallsTakeEmptyArraysInEitherMode) {
  for (bool numpy : {false, true}) {
    set_np_shape(numpy ? 1 : 0);
    NDArray empty(Shape({0, 8, 12}), cpu()), full(Shape({3, 8, 12}), cpu());
    EXPECT_EQ(nd::concat({empty, full, empty}, 0).shape(), Shape({3, 8, 12})) << numpy;
    EXPECT_EQ(nd::concat({NDArray(Shape({0, 3, 10}), cpu()), NDArray(Shape({0, 4, 10}), cpu())}, 1).shape(),
              Shape({0, 7, 10}));
    NDArray indices(Shape({2, 4}), cpu());
    EXPECT_EQ(nd::invoke1("one_hot", {indices}, {{"depth", "0"}}).shape(), Shape({2, 4, 0}));
    EXPECT_EQ(nd::invoke1("tile", {NDArray(Shape({2, 0}), cpu())}, {{"reps", "(2, 3)"}}).shape(), Shape({4, 0}));
  }
  set_np_shape(0);
}

TEST(NumpyShape, GraphsReadZeroAsUnknownByDefault) {
  Symbol slice = sym::make("slice", {Symbol::Variable("data")}, {{"begin", "(None, 3)"}, {"end", "(None, 10)"}}, "s");
  EXPECT_EQ(slice.infer_shape_partial({{"data", Shape({0, 20})}}).out[0], Shape({0, 7}));
  Symbol axis = sym::make("slice_axis", {Symbol::Variable("data")}, {{"axis", "1"}, {"begin", "0"}, {"end", "5"}}, "a");
  EXPECT_EQ(axis.infer_shape_partial({{"data", Shape({10, 0})}}).out[0], Shape({10, 0}));  // still unknown
  Symbol concat = sym::make("Concat", {Symbol::Variable("a"), Symbol::Variable("b")}, {{"dim", "0"}}, "c");
  EXPECT_EQ(concat.infer_shape_partial({{"a", Shape({0, 3})}, {"b", Shape({2, 3})}}).out[0], Shape({0, 3}));
}

TEST(NumpyShape, GraphsReadZeroAsEmptyAndMinusOneAsUnknownUnderNumpyShapes) {
  NumpyShapes on;
  Symbol slice = sym::make("slice", {Symbol::Variable("data")}, {{"begin", "(None, 3)"}, {"end", "(None, 10)"}}, "s");
  EXPECT_EQ(slice.infer_shape_partial({{"data", Shape({-1, 20})}}).out[0], Shape({-1, 7}));
  EXPECT_EQ(slice.infer_shape({{"data", Shape({0, 20})}}).out[0], Shape({0, 7}));
  Symbol concat = sym::make("Concat", {Symbol::Variable("a"), Symbol::Variable("b")}, {{"dim", "0"}}, "c");
  EXPECT_EQ(concat.infer_shape({{"a", Shape({0, 3})}, {"b", Shape({2, 3})}}).out[0], Shape({2, 3}));
  // One unknown extent along the axis comes from the output's, even when it is empty.
  const auto partial = concat.infer_shape_partial({{"a", Shape({-1, 3})}, {"b", Shape({2, 3})}});
  EXPECT_EQ(partial.out[0], Shape({-1, 3}));
  Symbol index = sym::make("_contrib_index_array", {Symbol::Variable("data")}, {}, "i");
  EXPECT_EQ(index.infer_shape({{"data", Shape({0, 0, 0})}}).out[0], Shape({0, 0, 0, 3}));
}

}  // namespace
}  // namespace braid
