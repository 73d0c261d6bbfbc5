// take, pick and one_hot: hand-worked values, NumPy for every axis and index mode, errors, and
// the scatter-add gradients checked directly.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/ndarray/indexing.h"
#include "braid/ndarray/invoke.h"
#include "unit/op/tensor/index_test_util.h"

namespace braid::test {
namespace {

using tix::array;
using tix::expect_error_mentioning;
using tix::values;
using V = std::vector<double>;

TEST(Take, HandWorkedValues) {
  NDArray a = array({1, 2, 3, 4, 5, 6}, Shape({3, 2}));
  NDArray t = nd::take(a, array({0, 1, 1, 2}, Shape({2, 2}), DType::Float32));
  EXPECT_EQ(t.shape(), Shape({2, 2, 2}));
  EXPECT_EQ(values(t), V({1, 2, 3, 4, 3, 4, 5, 6}));
  NDArray t1 = nd::take(a, array({1, 0, 1}, Shape({3}), DType::Int32), 1);
  EXPECT_EQ(t1.shape(), Shape({3, 3}));
  EXPECT_EQ(values(t1), V({2, 1, 2, 4, 3, 4, 6, 5, 6}));
  // Float indices truncate toward zero; clip (the default) clamps into [0, 2].
  EXPECT_EQ(values(nd::take(a, array({1.7, -0.5, -4, 9}, Shape({4})))), V({3, 4, 1, 2, 1, 2, 5, 6}));
  EXPECT_EQ(values(nd::take(a, array({-1, 4}, Shape({2})), 0, "wrap")), V({5, 6, 3, 4}));
  EXPECT_EQ(values(nd::take(a, array({2, 0}, Shape({2})), 0, "raise")), V({5, 6, 1, 2}));
  NDArray ai = array({7, 8, 9}, Shape({3}), DType::Int32);
  NDArray ti = nd::take(ai, array({2, 2, 0}, Shape({3}), DType::Int64));
  EXPECT_EQ(ti.dtype(), DType::Int32);
  EXPECT_EQ(ti.to_vector<int32_t>(), std::vector<int32_t>({9, 9, 7}));
}

TEST(Take, MatchesNumpyForEveryAxisAndMode) {
  NDArray a = array(tix::random_values(60), Shape({3, 4, 5}));
  NDArray idx = array({0, 4, -1, 2, 7, -6}, Shape({2, 3}));
  std::vector<std::string> exprs;
  for (int axis : {0, 1, 2, -1})
    for (const char* mode : {"clip", "wrap"})
      exprs.push_back("np.take(a, i.astype(int), axis=" + std::to_string(axis) + ", mode='" + mode + "')");
  const auto ref = tix::numpy({{"a", a}, {"i", idx}}, exprs);
  size_t k = 0;
  for (int axis : {0, 1, 2, -1})
    for (const char* mode : {"clip", "wrap"}) {
      NDArray t = nd::take(a, idx, axis, mode);
      EXPECT_EQ(t.shape(), Shape(ref[k].shape)) << exprs[k];
      EXPECT_EQ(values(t), ref[k].values) << exprs[k];
      ++k;
    }
}

TEST(Take, RaiseModeRejectsOutOfRangeIndices) {
  NDArray a = array({1, 2, 3}, Shape({3}));
  expect_error_mentioning(
      [&] {
        nd::take(a, array({0, 3}, Shape({2})), 0, "raise").wait_to_read();
      },
      "operator take: index 3 is out of bounds for an axis of size 3");
  expect_error_mentioning([&] { nd::take(a, array({-1}, Shape({1})), 0, "raise").wait_to_read(); }, "index -1");
}

TEST(Pick, HandWorkedValues) {
  NDArray x = array({1, 2, 3, 4, 5, 6}, Shape({3, 2}));
  EXPECT_EQ(values(nd::pick(x, array({0, 1, 0}, Shape({3})))), V({1, 4, 5}));
  EXPECT_EQ(values(nd::pick(x, array({2, 1}, Shape({2})), 0)), V({5, 4}));
  NDArray kept = nd::pick(x, array({1, 1, 0}, Shape({3, 1})), 1, true);
  EXPECT_EQ(kept.shape(), Shape({3, 1}));
  EXPECT_EQ(values(kept), V({2, 4, 5}));
  EXPECT_EQ(values(nd::pick(x, array({5, -1, 1}, Shape({3})))), V({2, 3, 6}));  // clip
  EXPECT_EQ(values(nd::pick(x, array({5, -1, 2}, Shape({3})), -1, false, "wrap")), V({2, 4, 5}));
}

TEST(Pick, MatchesNumpyForEveryAxisAndMode) {
  NDArray x = array(tix::random_values(60), Shape({3, 4, 5}));
  std::vector<std::pair<std::string, NDArray>> arrays{{"x", x}};
  std::vector<std::string> exprs;
  std::vector<NDArray> index;
  for (int axis : {0, 1, 2}) {
    Shape s = x.shape();
    std::vector<int64_t> dims;
    for (int d = 0; d < 3; ++d)
      if (d != axis) dims.push_back(s[d]);
    V iv = tix::random_values(Shape(dims).size(), -7, 9, 3 + axis);
    for (auto& v : iv) v = std::floor(v);
    index.push_back(array(iv, Shape(dims)));
    const std::string name = "i" + std::to_string(axis), n = std::to_string(s[axis]), ax = std::to_string(axis);
    arrays.emplace_back(name, index.back());
    for (const std::string& fix : {"np.clip(" + name + ", 0, " + n + " - 1)", "np.mod(" + name + ", " + n + ")"})
      exprs.push_back("np.take_along_axis(x, np.expand_dims(" + fix + ".astype(int), " + ax + "), " + ax +
                      ").squeeze(" + ax + ")");
  }
  const auto ref = tix::numpy(arrays, exprs);
  for (int axis : {0, 1, 2}) {
    for (int m = 0; m < 2; ++m) {
      const size_t k = static_cast<size_t>(axis * 2 + m);
      NDArray p = nd::pick(x, index[static_cast<size_t>(axis)], axis, false, m == 0 ? "clip" : "wrap");
      EXPECT_EQ(p.shape(), Shape(ref[k].shape)) << exprs[k];
      EXPECT_EQ(values(p), ref[k].values) << exprs[k];
    }
  }
}

TEST(OneHot, HandWorkedValues) {
  NDArray oh = nd::one_hot(array({1, 0, 2, 5, -1}, Shape({5})), 3);
  EXPECT_EQ(oh.shape(), Shape({5, 3}));
  EXPECT_EQ(oh.dtype(), DType::Float32);
  // Indices outside [0, depth) give a row of off_value.
  EXPECT_EQ(values(oh), V({0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
  NDArray oi = nd::one_hot(array({2, 0, 1, 1}, Shape({2, 2}), DType::Int32), 3, 5, -1, DType::Int32);
  EXPECT_EQ(oi.shape(), Shape({2, 2, 3}));
  EXPECT_EQ(oi.dtype(), DType::Int32);
  EXPECT_EQ(oi.to_vector<int32_t>(), std::vector<int32_t>({-1, -1, 5, 5, -1, -1, -1, 5, -1, -1, 5, -1}));
}

TEST(Indexing, BadInputsNameTheOp) {
  NDArray a = array({1, 2, 3, 4, 5, 6}, Shape({3, 2}));
  NDArray i = array({0, 1}, Shape({2}));
  expect_error_mentioning([&] { nd::take(a, i, 2); }, "operator take: axis 2 is out of range");
  expect_error_mentioning([&] { nd::take(a, i, 0, "nearest"); }, "mode");
  expect_error_mentioning([&] { nd::pick(a, i, 0, false, "raise"); }, "mode");
  expect_error_mentioning([&] { nd::pick(a, array({0, 1, 1}, Shape({3})), 0); }, "operator pick: index has shape");
  expect_error_mentioning([&] { nd::invoke1("pick", {a, i}, {{"axis", "None"}}); }, "operator pick: axis=None");
  expect_error_mentioning([&] { nd::pick(a, i, -3); }, "operator pick: axis -3");
  expect_error_mentioning([&] { nd::one_hot(i, -1); }, "operator one_hot: depth");  // 0 is valid: empty rows
  expect_error_mentioning([&] { nd::invoke1("one_hot", {i}, {}); }, "depth");
  expect_error_mentioning([&] { nd::take(a, array({NAN}, Shape({1}))).wait_to_read(); },
                          "operator take: index 0 is NaN");
}

TEST(Indexing, BackwardScattersAndAccumulates) {
  const auto W = op::OpReq::Write, A = op::OpReq::Add;
  // take: repeated indices add up; the indices get a zero gradient.
  std::vector<V> g{V(6, -9), V(3, -9)};
  tix::run_backward("take", {}, {{1, 2, 3, 4, 5, 6}, {2, 0, 2}}, {Shape({3, 2}), Shape({3})}, {{1, 2, 3, 4, 5, 6}},
                    {W, W}, g);
  EXPECT_EQ(g[0], V({3, 4, 0, 0, 6, 8}));
  EXPECT_EQ(g[1], V(3, 0));
  g = {V(6, 10), V(3, 7)};
  tix::run_backward("take", {{"axis", "1"}}, {{1, 2, 3, 4, 5, 6}, {1, 1, 0}}, {Shape({3, 2}), Shape({3})}, {V(9, 1)},
                    {A, op::OpReq::Null}, g);
  EXPECT_EQ(g[0], V({11, 12, 11, 12, 11, 12}));
  EXPECT_EQ(g[1], V(3, 7));
  // pick: each output gradient lands on the picked element.
  g = {V(6, -9), V(3, -9)};
  tix::run_backward("pick", {{"mode", "wrap"}}, {{1, 2, 3, 4, 5, 6}, {1, -2, 3}}, {Shape({3, 2}), Shape({3})},
                    {{7, 8, 9}}, {W, W}, g);
  EXPECT_EQ(g[0], V({0, 7, 8, 0, 0, 9}));
  EXPECT_EQ(g[1], V(3, 0));
}

}  // namespace
}  // namespace braid::test
