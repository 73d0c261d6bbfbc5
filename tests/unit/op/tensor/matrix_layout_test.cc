// transpose, flip, slice_axis, slice, tile and repeat: hand-computed values, NumPy on many shapes (exact
// for every dtype, since they only move elements), and bad attributes.
#include <gtest/gtest.h>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

using Floats = std::vector<float>;
const DType kAllTypes[] = {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::UInt8, DType::Int8};

// Runs `op` on iota data of `shape` in every dtype and compares with NumPy's `expr` on `a`.
template <class Op>
void check_against_numpy(const Shape& shape, const std::string& expr, Op op) {
  auto values = iota(shape.size());
  for (auto& v : values) v = static_cast<double>(static_cast<int64_t>(v) % 100);  // fits int8
  auto ref = numpy_eval(expr, {{shape, values}});
  for (DType t : kAllTypes) {
    SCOPED_TRACE(cat(expr, " on ", shape, " ", dtype_name(t)));
    NDArray out = op(make_array(shape, values, t));
    EXPECT_EQ(out.dtype(), t);
    expect_matches(out, ref);
  }
}

std::string py_tuple(const std::vector<int>& v) {
  std::string s = "(";
  for (int x : v) s += cat(x, ", ");
  return s + ")";
}

TEST(MatrixLayout, TransposeHandComputed) {
  NDArray a = make_array(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  NDArray t = nd::transpose(a);
  EXPECT_EQ(t.shape(), Shape({3, 2}));
  EXPECT_EQ(t.to_vector<float>(), (Floats{1, 4, 2, 5, 3, 6}));
  NDArray b = make_array(Shape({2, 2, 2}), iota(8));
  EXPECT_EQ(nd::transpose(b, {0, 2, 1}).to_vector<float>(), (Floats{0, 2, 1, 3, 4, 6, 5, 7}));
  EXPECT_EQ(nd::transpose(b, {1, 0, 2}).to_vector<float>(), (Floats{0, 1, 4, 5, 2, 3, 6, 7}));
}

TEST(MatrixLayout, TransposeMatchesNumpy) {
  const std::vector<std::pair<Shape, std::vector<int>>> cases = {
      {Shape({5}), {}},
      {Shape({70, 45}), {}},
      {Shape({1, 33}), {1, 0}},
      {Shape({3, 4, 5}), {}},
      {Shape({3, 4, 5}), {2, 0, 1}},
      {Shape({3, 4, 5}), {1, 2, 0}},
      {Shape({3, 40, 37}), {0, 2, 1}},
      {Shape({2, 3, 4, 5}), {3, 1, 0, 2}},
      {Shape({2, 3, 4, 5}), {0, 1, 3, 2}},
      {Shape({2, 1, 4, 1}), {3, 2, 1, 0}},
      {Shape({2, 3, 4}), {-1, 0, 1}},
  };
  for (const auto& c : cases) {
    const Shape& shape = c.first;
    const std::vector<int>& axes = c.second;  // captured below (clang 14: no structured bindings)
    std::string expr = axes.empty() ? "np.transpose(a)" : "np.transpose(a, " + py_tuple(axes) + ")";
    check_against_numpy(shape, expr, [&](const NDArray& x) { return nd::transpose(x, axes); });
  }
}

TEST(MatrixLayout, FlipSliceTileRepeatMatchNumpy) {
  check_against_numpy(Shape({3, 4}), "np.flip(a, (1,))", [](const NDArray& x) { return nd::flip(x, {1}); });
  check_against_numpy(Shape({2, 3, 4}), "np.flip(a, (0, 2))", [](const NDArray& x) { return nd::flip(x, {0, -1}); });
  check_against_numpy(Shape({5}), "a[::-1]", [](const NDArray& x) { return nd::flip(x, {0}); });
  check_against_numpy(Shape({4, 6}), "a[:, 1:4]", [](const NDArray& x) { return nd::slice_axis(x, 1, 1, 4); });
  check_against_numpy(Shape({4, 6, 2}), "a[:, -3:]", [](const NDArray& x) { return nd::slice_axis(x, -2, -3); });
  check_against_numpy(Shape({5, 2}), "a[1:-1]", [](const NDArray& x) { return nd::slice_axis(x, 0, 1, -1); });
  // slice: MXNet's begin/end/step tuples with None, as NumPy's basic slicing (clamped ranges).
  const std::vector<std::tuple<Shape, op::AttrMap, std::string>> slices = {
      {Shape({2, 3, 4}), {{"begin", "(0, 1)"}, {"end", "(None, 3)"}}, "a[:, 1:3]"},
      {Shape({2, 3, 4}),
       {{"begin", "(None, None, None)"}, {"end", "(None, None, None)"}, {"step", "(1, -1, -2)"}},
       "a[:, ::-1, ::-2]"},
      {Shape({6, 5}), {{"begin", "(-4, 1)"}, {"end", "(100, -1)"}, {"step", "(2, None)"}}, "a[-4:100:2, 1:-1]"},
      {Shape({6, 5}), {{"begin", "(4,)"}, {"end", "(0,)"}, {"step", "(-1,)"}}, "a[4:0:-1]"},
      {Shape({6, 5}), {{"begin", "(-100, 2)"}, {"end", "(2, 5)"}}, "a[-100:2, 2:5]"},
  };
  for (const auto& [shape, slice_attrs, expr] : slices) {
    const op::AttrMap attrs = slice_attrs;  // a named copy: clang 14 cannot capture a structured binding
    check_against_numpy(shape, expr, [&](const NDArray& x) { return nd::invoke1("slice", {x}, attrs); });
  }
  check_against_numpy(Shape({4, 6}), "a[1:3, ::3]", [](const NDArray& x) {
    return nd::invoke1("crop", {x}, {{"begin", "(1, 0)"}, {"end", "(3, None)"}, {"step", "(1, 3)"}});
  });
  check_against_numpy(Shape({2, 3}), "np.tile(a, (2, 3))", [](const NDArray& x) { return nd::tile(x, {2, 3}); });
  check_against_numpy(Shape({2, 3}), "np.tile(a, (2, 1, 2))", [](const NDArray& x) { return nd::tile(x, {2, 1, 2}); });
  check_against_numpy(Shape({2, 3, 2}), "np.tile(a, (3,))", [](const NDArray& x) { return nd::tile(x, {3}); });
  check_against_numpy(Shape({2, 3}), "np.repeat(a, 2)", [](const NDArray& x) { return nd::repeat(x, 2); });
  check_against_numpy(Shape({2, 3}), "np.repeat(a, 3, axis=1)", [](const NDArray& x) { return nd::repeat(x, 3, 1); });
  check_against_numpy(Shape({2, 3, 2}), "np.repeat(a, 2, axis=-3)",
                      [](const NDArray& x) { return nd::repeat(x, 2, -3); });
}

TEST(MatrixLayout, SliceRejectsBadRanges) {
  NDArray a = make_array(Shape({2, 3}), iota(6));
  EXPECT_THROW(nd::invoke1("slice", {a}, {{"begin", "(0, 0, 0)"}, {"end", "(1, 1, 1)"}}), Error);  // too many
  EXPECT_THROW(nd::invoke1("slice", {a}, {{"begin", "(0,)"}, {"end", "(1, 1)"}}), Error);          // unequal
  EXPECT_THROW(nd::invoke1("slice", {a}, {{"begin", "(0,)"}, {"end", "(1,)"}, {"step", "(0,)"}}), Error);
  EXPECT_THROW(nd::invoke1("slice", {a}, {{"begin", "(x,)"}, {"end", "(1,)"}}), Error);
}

TEST(MatrixLayout, HandComputedFlipSliceTileRepeat) {
  NDArray a = make_array(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(nd::flip(a, {1}).to_vector<float>(), (Floats{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(nd::invoke1("reverse", {a}, {{"axis", "0"}}).to_vector<float>(), (Floats{4, 5, 6, 1, 2, 3}));
  NDArray s = nd::slice_axis(a, 1, 1, std::nullopt);
  EXPECT_EQ(s.shape(), Shape({2, 2}));
  EXPECT_EQ(s.to_vector<float>(), (Floats{2, 3, 5, 6}));
  NDArray t = nd::tile(a, {1, 2});
  EXPECT_EQ(t.shape(), Shape({2, 6}));
  EXPECT_EQ(t.to_vector<float>(), (Floats{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  NDArray r = nd::repeat(a, 2, 0);
  EXPECT_EQ(r.shape(), Shape({4, 3}));
  EXPECT_EQ(r.to_vector<float>(), (Floats{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  EXPECT_EQ(nd::repeat(a, 2).shape(), Shape({12}));
}

TEST(MatrixLayout, StorageDtypesMoveToo) {
  // float16 and bool have no arithmetic kernels, but moving elements needs none.
  for (DType t : {DType::Float16, DType::Bool}) {
    NDArray a = make_array(Shape({2, 3}), {1, 0, 1, 1, 1, 0}, t);
    EXPECT_EQ(nd::transpose(a).to_vector<float>(), (Floats{1, 1, 0, 1, 1, 0}));
    EXPECT_EQ(nd::flip(a, {1}).to_vector<float>(), (Floats{1, 0, 1, 0, 1, 1}));
    EXPECT_EQ(nd::tile(a, {1, 2}).dtype(), t);
  }
}

TEST(MatrixLayout, BoolArraysAreFilledBroadcastTakenAndSelected) {
  // mx.np's bool arrays: fills give 0 or 1 bytes (a fill value of 2 is true), broadcasts and
  // gathers move the bytes, and a bool condition selects.
  NDArray t = nd::invoke1("_full", {}, {{"shape", "(2, 2)"}, {"dtype", "bool"}, {"value", "2"}});
  EXPECT_EQ(t.dtype(), DType::Bool);
  EXPECT_EQ(t.to_vector<float>(), (Floats{1, 1, 1, 1}));
  EXPECT_EQ(nd::invoke1("zeros_like", {t}, {}).to_vector<float>(), (Floats{0, 0, 0, 0}));
  NDArray row = make_array(Shape({1, 3}), {1, 0, 1}, DType::Bool);
  NDArray wide = nd::invoke1("broadcast_to", {row}, {{"shape", "(2, 3)"}});
  EXPECT_EQ(wide.dtype(), DType::Bool);
  EXPECT_EQ(wide.to_vector<float>(), (Floats{1, 0, 1, 1, 0, 1}));
  NDArray picked = nd::invoke1("take", {row.reshape({3}), make_array(Shape({2}), {1, 2}, DType::Int64)}, {});
  EXPECT_EQ(picked.to_vector<float>(), (Floats{0, 1}));
  NDArray x = make_array(Shape({3}), {10, 20, 30}), y = make_array(Shape({3}), {-1, -2, -3});
  EXPECT_EQ(nd::invoke1("where", {row.reshape({3}), x, y}, {}).to_vector<float>(), (Floats{10, -2, 30}));
}

TEST(MatrixLayout, BadAttributesThrow) {
  NDArray a(Shape({2, 3, 4}));
  expect_error([&] { nd::transpose(a, {0, 1}); }, {"transpose", "(0, 1)", "(2, 3, 4)"});
  expect_error([&] { nd::transpose(a, {0, 1, 1}); }, {"transpose", "repeated"});
  expect_error([&] { nd::transpose(a, {0, 1, 3}); }, {"transpose", "out of range", "(2, 3, 4)"});
  expect_error([&] { nd::flip(a, {3}); }, {"flip", "axis=3", "(2, 3, 4)"});
  expect_error([&] { nd::slice_axis(a, 1, 2, 2); }, {"slice_axis", "begin=2", "end=2", "(2, 3, 4)"});
  expect_error([&] { nd::slice_axis(a, 1, 0, 4); }, {"slice_axis", "end=4"});
  expect_error([&] { nd::slice_axis(a, 1, -4); }, {"slice_axis", "begin=-4"});
  expect_error([&] { nd::slice_axis(a, 3, 0); }, {"slice_axis", "axis=3"});
  expect_error([&] { nd::tile(a, {2, 0}); }, {"tile", "reps"});
  expect_error([&] { nd::repeat(a, 0); }, {"repeat", "repeats=0"});
  expect_error([&] { nd::repeat(a, 2, 3); }, {"repeat", "axis=3"});
  expect_error([&] { nd::invoke1("transpose", {a}, {{"axis", "(1, 0, 2)"}}); }, {"transpose", "axis"});
}

}  // namespace
}  // namespace braid::test
