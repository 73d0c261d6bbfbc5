// _np_reshape (NumPy's: 0 is an empty axis), _npx_reshape (MXNet's codes -1 to -6, reverse) and
// _np_squeeze (0-d results), against shapes worked out by hand from NumPy's and MXNet's rules.
#include <gtest/gtest.h>

#include "braid/ndarray/invoke.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

Shape run(const std::string& op, const Shape& in, const op::AttrMap& attrs) {
  return nd::invoke1(op, {NDArray(in)}, attrs).shape();
}

TEST(MatrixNpReshape, SizesAreLiteralButOneInferred) {
  EXPECT_EQ(run("_np_reshape", Shape({2, 3, 4}), {{"newshape", "(4, -1)"}}), Shape({4, 6}));
  EXPECT_EQ(run("_np_reshape", Shape({1, 0}), {{"newshape", "(0,)"}}), Shape({0}));
  EXPECT_EQ(run("_np_reshape", Shape({0}), {{"newshape", "(2, 0, 1)"}}), Shape({2, 0, 1}));
  EXPECT_EQ(run("_npi_reshape", Shape({1, 1}), {{"newshape", "()"}}).ndim(), 0);
  // The values keep their order.
  NDArray x = make_array(Shape({2, 3}), iota(6));
  EXPECT_EQ(nd::invoke1("_np_reshape", {x}, {{"newshape", "(3, 2)"}}).to_vector<double>(), iota(6));
  expect_error([] { run("_np_reshape", Shape({2, 3}), {{"newshape", "(4, -1)"}}); }, {"_np_reshape", "(2, 3)"});
  expect_error([] { run("_np_reshape", Shape({0, 3}), {{"newshape", "(-1, 0)"}}); }, {"_np_reshape", "-1"});
  expect_error([] { run("_np_reshape", Shape({2, 3}), {{"newshape", "(-2, 3)"}}); }, {"_np_reshape", "-2"});
  expect_error([] { run("_np_reshape", Shape({2, 3}), {{"newshape", "(-1, -1)"}}); }, {"more than one -1"});
}

TEST(MatrixNpReshape, NpxCodesReadTheInputsAxesInTurn) {
  const Shape in({2, 3, 4, 5});
  EXPECT_EQ(run("_npx_reshape", in, {{"newshape", "(-2, -1)"}}), Shape({2, 60}));
  EXPECT_EQ(run("_npx_reshape", in, {{"newshape", "(-4,)"}}), in);
  EXPECT_EQ(run("_npx_reshape", in, {{"newshape", "(-5, -4)"}}), Shape({6, 4, 5}));
  EXPECT_EQ(run("_npx_reshape", in, {{"newshape", "(-2, -2, -5)"}}), Shape({2, 3, 20}));
  EXPECT_EQ(run("_npx_reshape", in, {{"newshape", "(-6, 1, -1, -4)"}}), Shape({1, 2, 3, 4, 5}));
  EXPECT_EQ(run("_npx_reshape", in, {{"newshape", "(-2, -6, -1, 3, -4)"}}), Shape({2, 1, 3, 4, 5}));
  EXPECT_EQ(run("_npx_reshape", Shape({1, 3}), {{"newshape", "(-3, -2)"}}), Shape({3}));
  // reverse reads from the right: the -1 then takes what is left at the front.
  EXPECT_EQ(run("_npx_reshape", in, {{"newshape", "(-1, -2)"}, {"reverse", "True"}}), Shape({24, 5}));
  EXPECT_EQ(run("_npx_reshape", Shape({6, 4}), {{"newshape", "(-6, 2, -1, -2)"}, {"reverse", "True"}}),
            Shape({2, 3, 4}));
  expect_error([] { run("_npx_reshape", Shape({2, 3}), {{"newshape", "(-3, -2)"}}); }, {"-3", "size 2"});
  expect_error([] { run("_npx_reshape", Shape({2}), {{"newshape", "(-2, -2)"}}); }, {"reads past", "(2,)"});
  expect_error([] { run("_npx_reshape", Shape({6}), {{"newshape", "(-6, 4, -1)"}}); }, {"-6", "6"});
  expect_error([] { run("_npx_reshape", Shape({6}), {{"newshape", "(-7,)"}}); }, {"unknown code -7"});
}

TEST(MatrixNpReshape, NpSqueezeCanGiveAZeroDimensionalArray) {
  EXPECT_EQ(run("_np_squeeze", Shape({1, 1, 1}), {}).ndim(), 0);
  EXPECT_EQ(run("squeeze", Shape({1, 1, 1}), {}), Shape({1}));  // MXNet 1.x's squeeze keeps (1,)
  EXPECT_EQ(run("_np_squeeze", Shape({1, 0, 1, 5}), {{"axis", "2"}}), Shape({1, 0, 5}));
  EXPECT_EQ(run("_np_squeeze", Shape(std::vector<int64_t>{}), {{"axis", "-1"}}).ndim(), 0);
  expect_error([] { run("_np_squeeze", Shape(std::vector<int64_t>{}), {{"axis", "1"}}); }, {"_np_squeeze", "0-d"});
  expect_error([] { run("_np_squeeze", Shape({2, 1}), {{"axis", "0"}}); }, {"_np_squeeze", "size 2"});
}

}  // namespace
}  // namespace braid::test
