// slice_like, Crop, _slice_assign(_scalar), _split_v2, broadcast_axis, broadcast_like's axes, where
// with a row condition, pad, add_n, shape_array and size_array: values as MXNet's documentation and NumPy give them,
// and errors naming the attribute.
#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

using V = std::vector<double>;

TEST(SlicePadOps, SliceLikeKeepsTheLeadingPart) {
  NDArray x = make_array(Shape({3, 4}), iota(12));
  NDArray y = nd::invoke1("slice_like", {x, NDArray(Shape({2, 3}))});
  EXPECT_EQ(y.shape(), Shape({2, 3}));
  EXPECT_EQ(y.to_vector<double>(), (V{0, 1, 2, 4, 5, 6}));
  NDArray z = nd::invoke1("slice_like", {x, NDArray(Shape({2, 3}))}, {{"axes", "(-1,)"}});
  EXPECT_EQ(z.shape(), Shape({3, 3}));
  EXPECT_EQ(z.to_vector<double>(), (V{0, 1, 2, 4, 5, 6, 8, 9, 10}));
  EXPECT_THROW(nd::invoke1("slice_like", {x, NDArray(Shape({5, 1}))}), Error);
}

// A 1x1x4x5 image 0..19: rows 1-2, columns 2-4; centered like a 2x3 array: rows 1-2, columns 1-3.
TEST(SlicePadOps, CropTakesTheRegionAtTheOffsetOrCentered) {
  NDArray x = make_array(Shape({1, 1, 4, 5}), iota(20));
  NDArray y = nd::invoke1("Crop", {x}, {{"num_args", "1"}, {"h_w", "(2, 3)"}, {"offset", "(1, 2)"}});
  EXPECT_EQ(y.shape(), Shape({1, 1, 2, 3}));
  EXPECT_EQ(y.to_vector<double>(), (V{7, 8, 9, 12, 13, 14}));
  NDArray c = nd::invoke1("Crop", {x, NDArray(Shape({1, 1, 2, 3}))}, {{"num_args", "2"}, {"center_crop", "True"}});
  EXPECT_EQ(c.to_vector<double>(), (V{6, 7, 8, 11, 12, 13}));
  EXPECT_THROW(nd::invoke1("Crop", {x}, {{"num_args", "1"}, {"h_w", "(2, 3)"}, {"offset", "(3, 0)"}}), Error);
  EXPECT_THROW(nd::invoke1("Crop", {x}, {{"num_args", "1"}, {"h_w", "(5, 3)"}}), Error);
}

TEST(SlicePadOps, SliceAssignReplacesTheRegion) {
  NDArray x = make_array(Shape({3, 4}), iota(12));
  NDArray v = make_array(Shape({2, 2}), V{-1, -2, -3, -4});
  NDArray y = nd::invoke1("_slice_assign", {x, v}, {{"begin", "(1, 0)"}, {"end", "(3, 4)"}, {"step", "(1, 2)"}});
  EXPECT_EQ(y.to_vector<double>(), (V{0, 1, 2, 3, -1, 5, -2, 7, -3, 9, -4, 11}));
  EXPECT_EQ(x.to_vector<double>(), iota(12));  // not in place unless asked
  NDArray s = nd::invoke1("_crop_assign_scalar", {x}, {{"begin", "(0, 1)"}, {"end", "(2, 3)"}, {"scalar", "7"}});
  EXPECT_EQ(s.to_vector<double>(), (V{0, 7, 7, 3, 4, 7, 7, 7, 8, 9, 10, 11}));
  EXPECT_THROW(nd::invoke1("_slice_assign", {x, v}, {{"begin", "(0,)"}, {"end", "(3,)"}}), Error);  // rhs shape
}

TEST(SlicePadOps, SplitV2CutsAtIndicesOrIntoSections) {
  NDArray x = make_array(Shape({2, 5}), iota(10));
  auto parts = nd::invoke("_split_v2", {x}, {{"indices", "(0, 1, 4)"}, {"axis", "1"}});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].to_vector<double>(), (V{0, 5}));
  EXPECT_EQ(parts[1].shape(), Shape({2, 3}));
  EXPECT_EQ(parts[1].to_vector<double>(), (V{1, 2, 3, 6, 7, 8}));
  EXPECT_EQ(parts[2].to_vector<double>(), (V{4, 9}));
  auto rows = nd::invoke("_split_v2", {x}, {{"sections", "2"}, {"squeeze_axis", "True"}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].shape(), Shape({5}));
  EXPECT_EQ(rows[1].to_vector<double>(), (V{5, 6, 7, 8, 9}));
  EXPECT_THROW(nd::invoke("_split_v2", {x}, {{"sections", "3"}, {"axis", "1"}}), Error);
  EXPECT_THROW(nd::invoke("_split_v2", {x}, {{"indices", "(0, 4, 2)"}, {"axis", "1"}}), Error);
}

TEST(SlicePadOps, BroadcastAxisAndBroadcastLikeAxes) {
  NDArray x = make_array(Shape({1, 2, 1}), V{1, 2});
  NDArray y = nd::invoke1("broadcast_axes", {x}, {{"axis", "(0, 2)"}, {"size", "(2, 2)"}});
  EXPECT_EQ(y.shape(), Shape({2, 2, 2}));
  EXPECT_EQ(y.to_vector<double>(), (V{1, 1, 2, 2, 1, 1, 2, 2}));
  EXPECT_THROW(nd::invoke1("broadcast_axis", {x}, {{"axis", "(1,)"}, {"size", "(3,)"}}), Error);  // size 2, not 1
  NDArray like =
      nd::invoke1("broadcast_like", {x, NDArray(Shape({3, 5}))}, {{"lhs_axes", "(0,)"}, {"rhs_axes", "(-1,)"}});
  EXPECT_EQ(like.shape(), Shape({5, 2, 1}));
  EXPECT_THROW(nd::invoke1("broadcast_like", {x, NDArray(Shape({3}))}, {{"lhs_axes", "()"}, {"rhs_axes", "()"}}),
               Error);
}

// MXNet's where: a 1-D condition of x's first dimension picks whole rows of x or y.
TEST(SlicePadOps, WhereWithARowCondition) {
  NDArray cond = make_array(Shape({3}), V{1, 0, 2});
  NDArray x = make_array(Shape({3, 2}), iota(6));
  NDArray y = make_array(Shape({3, 2}), V{10, 11, 12, 13, 14, 15});
  NDArray out = nd::invoke1("where", {cond, x, y}, {});
  EXPECT_EQ(out.shape(), Shape({3, 2}));
  EXPECT_EQ(out.to_vector<double>(), (V{0, 1, 12, 13, 4, 5}));
  EXPECT_THROW(nd::invoke1("where", {make_array(Shape({2}), V{1, 0}), x, y}, {}), Error);  // not x's 3 rows
  EXPECT_THROW(nd::invoke1("where", {make_array(Shape({3, 1}), V{1, 0, 1}), x, y}, {}), Error);
}

// NumPy: np.pad([[0, 1, 2], [3, 4, 5]], ((1, 0), (2, 1)), mode) for each mode.
TEST(SlicePadOps, PadModesMatchNumPy) {
  NDArray x = make_array(Shape({1, 1, 2, 3}), iota(6));
  auto pad = [&](const char* mode) {
    return nd::invoke1("pad", {x},
                       {{"mode", mode}, {"pad_width", "(0, 0, 0, 0, 1, 0, 2, 1)"}, {"constant_value", "9"}});
  };
  EXPECT_EQ(pad("constant").shape(), Shape({1, 1, 3, 6}));
  EXPECT_EQ(pad("constant").to_vector<double>(), (V{9, 9, 9, 9, 9, 9, 9, 9, 0, 1, 2, 9, 9, 9, 3, 4, 5, 9}));
  EXPECT_EQ(pad("edge").to_vector<double>(), (V{0, 0, 0, 1, 2, 2, 0, 0, 0, 1, 2, 2, 3, 3, 3, 4, 5, 5}));
  EXPECT_EQ(pad("reflect").to_vector<double>(), (V{5, 4, 3, 4, 5, 4, 2, 1, 0, 1, 2, 1, 5, 4, 3, 4, 5, 4}));
  EXPECT_THROW(nd::invoke1("pad", {x}, {{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 2, 0, 0, 0)"}}),
               Error);  // reflect needs pads smaller than the axis
  EXPECT_THROW(nd::invoke1("pad", {x}, {{"pad_width", "(1, 0, 0, 0, 0, 0, 0, 0)"}}), Error);  // pads N
  EXPECT_THROW(nd::invoke1("pad", {make_array(Shape({2, 3}), iota(6))}, {{"pad_width", "(0, 0, 1, 1)"}}), Error);
}

TEST(SlicePadOps, AddNSumsItsInputs) {
  NDArray a = make_array(Shape({3}), V{1, 2, 3});
  NDArray y = nd::invoke1("ElementWiseSum", {a, a, make_array(Shape({3}), V{10, 20, 30})}, {{"num_args", "3"}});
  EXPECT_EQ(y.to_vector<double>(), (V{12, 24, 36}));
  EXPECT_THROW(nd::invoke1("add_n", {a, make_array(Shape({2}), V{1, 2})}, {{"num_args", "2"}}), Error);
}

TEST(SlicePadOps, ShapeAndSizeArrays) {
  NDArray x(Shape({2, 3, 4}));
  NDArray s = nd::invoke1("shape_array", {x});
  EXPECT_EQ(s.dtype(), DType::Int64);
  EXPECT_EQ(s.to_vector<double>(), (V{2, 3, 4}));
  NDArray n = nd::invoke1("size_array", {x});
  EXPECT_EQ(n.shape(), Shape({1}));
  EXPECT_EQ(n.to_vector<double>(), (V{24}));
}

}  // namespace
}  // namespace braid::test
