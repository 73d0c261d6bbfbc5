// Reshape, expand_dims and squeeze: MXNet's special shape values, reverse, the legacy
// target_shape, and bad shapes.
#include <gtest/gtest.h>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

Shape reshaped(const Shape& in, const op::AttrMap& attrs) {
  return nd::invoke1("Reshape", {NDArray(in)}, attrs).shape();
}

TEST(MatrixReshape, SpecialValuesAsInMxnetDocs) {
  // The examples of MXNet's Reshape documentation.
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {4, 0, 2}).shape(), Shape({4, 3, 2}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {2, 0, 0}).shape(), Shape({2, 3, 4}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {6, 1, -1}).shape(), Shape({6, 1, 4}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {3, -1, 8}).shape(), Shape({3, 1, 8}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {-1}).shape(), Shape({24}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {-2}).shape(), Shape({2, 3, 4}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {2, -2}).shape(), Shape({2, 3, 4}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {-2, 1, 1}).shape(), Shape({2, 3, 4, 1, 1}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {-3, 4}).shape(), Shape({6, 4}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4, 5})), {-3, -3}).shape(), Shape({6, 20}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {0, -3}).shape(), Shape({2, 12}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {-3, -2}).shape(), Shape({6, 4}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {-4, 1, 2, -2}).shape(), Shape({1, 2, 3, 4}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({2, 3, 4})), {2, -4, -1, 3, -2}).shape(), Shape({2, 1, 3, 4}));
  // reverse applies the special values from the right.
  EXPECT_EQ(nd::reshape(NDArray(Shape({10, 5, 4})), {-1, 0}).shape(), Shape({40, 5}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({10, 5, 4})), {-1, 0}, true).shape(), Shape({50, 4}));
  // With reverse, -4 splits the axis it meets from the right (MXNet's test_reshape cases).
  EXPECT_EQ(nd::reshape(NDArray(Shape({64})), {16, -1, -4}, true).shape(), Shape({16, 4}));
  EXPECT_EQ(nd::reshape(NDArray(Shape({1, 2, 3, 64})), {-2, -1, 16, -4}, true).shape(), Shape({1, 2, 3, 4, 16}));
  // The alias and the legacy target_shape (0 inferred, keep_highest keeps the first axis).
  EXPECT_EQ(reshaped(Shape({2, 3, 4}), {{"shape", "(4, -1)"}}), Shape({4, 6}));
  EXPECT_EQ(nd::invoke1("reshape", {NDArray(Shape({2, 3}))}, {{"shape", "(3, 2)"}}).shape(), Shape({3, 2}));
  EXPECT_EQ(reshaped(Shape({2, 3, 4}), {{"target_shape", "(0, 4)"}}), Shape({6, 4}));
  EXPECT_EQ(reshaped(Shape({2, 3, 4}), {{"target_shape", "(1, 0)"}, {"keep_highest", "True"}}), Shape({2, 12}));
}

TEST(MatrixReshape, KeepsElementOrderInEveryDtype) {
  for (DType t : {DType::Float32, DType::Float64, DType::Int32, DType::Int8}) {
    NDArray x = make_array(Shape({2, 3}), iota(6), t);
    NDArray y = nd::reshape(x, {3, 2});
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(y.to_vector<double>(), iota(6));
    EXPECT_EQ(nd::expand_dims(x, -1).shape(), Shape({2, 3, 1}));
    EXPECT_EQ(nd::expand_dims(x, 0).to_vector<double>(), iota(6));
  }
}

TEST(MatrixReshape, ExpandDimsAndSqueeze) {
  NDArray x(Shape({2, 3}));
  EXPECT_EQ(nd::expand_dims(x, 1).shape(), Shape({2, 1, 3}));
  EXPECT_EQ(nd::expand_dims(x, 2).shape(), Shape({2, 3, 1}));
  EXPECT_EQ(nd::expand_dims(x, -3).shape(), Shape({1, 2, 3}));
  NDArray y = make_array(Shape({1, 2, 1, 3}), iota(6));
  EXPECT_EQ(nd::squeeze(y).shape(), Shape({2, 3}));
  EXPECT_EQ(nd::squeeze(y).to_vector<double>(), iota(6));
  EXPECT_EQ(nd::squeeze(y, {2}).shape(), Shape({1, 2, 3}));
  EXPECT_EQ(nd::squeeze(y, {0, -2}).shape(), Shape({2, 3}));
  EXPECT_EQ(nd::squeeze(NDArray(Shape({1, 1}))).shape(), Shape({1}));  // MXNet 1.x: no 0-D result
}

TEST(MatrixReshape, AnEmptyShapeMakesAZeroDimensionalArray) {
  // shape=() (what a NumPy-style index giving one element records in a graph) is MXNet's 0-d
  // array; only an array of one element fits it.
  NDArray one = make_array(Shape({1, 1}), {7});
  NDArray scalar = nd::invoke1("Reshape", {one}, {{"shape", "()"}});
  EXPECT_EQ(scalar.shape().ndim(), 0);
  EXPECT_EQ(scalar.to_vector<double>(), std::vector<double>{7});
  expect_error(
      [&] {
        nd::invoke1("Reshape", {NDArray(Shape({2}))}, {{"shape", "()"}});
      },
      {"Reshape", "shape=()", "(2,)"});
}

TEST(MatrixReshape, BadShapesThrow) {
  NDArray x(Shape({2, 3, 4}));
  expect_error([&] { nd::reshape(x, {5, -1}); }, {"Reshape", "(2, 3, 4)", "(5, -1)"});
  expect_error([&] { nd::reshape(x, {-1, -1}); }, {"Reshape", "more than one -1"});
  expect_error([&] { nd::reshape(x, {7}); }, {"Reshape", "(2, 3, 4)"});
  expect_error([&] { nd::reshape(x, {-4, 1, 2, -2}, true); }, {"Reshape", "(2, 3, 4)"});
  expect_error([&] { nd::invoke1("Reshape", {x}, {}); }, {"Reshape", "shape"});
  expect_error([&] { nd::expand_dims(x, 4); }, {"expand_dims", "axis=4", "(2, 3, 4)"});
  expect_error([&] { nd::squeeze(x, {1}); }, {"squeeze", "(2, 3, 4)", "size 3"});
  expect_error([&] { nd::squeeze(NDArray(Shape({1, 2})), {0, 0}); }, {"squeeze", "repeated"});
}

}  // namespace
}  // namespace braid::test
