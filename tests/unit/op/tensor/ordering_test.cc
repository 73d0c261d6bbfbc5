// topk, sort, argsort: hand-worked values (ties and NaN included), NumPy for every axis and
// direction, errors, and the value gradients checked directly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/ordering.h"
#include "unit/op/tensor/index_test_util.h"

namespace braid::test {
namespace {

using tix::array;
using tix::expect_error_mentioning;
using tix::values;
using V = std::vector<double>;

TEST(Ordering, HandWorkedValues) {
  NDArray x = array({3, 1, 2, 9, 7, 8}, Shape({2, 3}));
  EXPECT_EQ(values(nd::sort(x)), V({1, 2, 3, 7, 8, 9}));
  EXPECT_EQ(values(nd::sort(x, 0, false)), V({9, 7, 8, 3, 1, 2}));
  EXPECT_EQ(values(nd::sort(x, std::nullopt)), V({1, 2, 3, 7, 8, 9}));
  EXPECT_EQ(nd::sort(x, std::nullopt).shape(), Shape({6}));
  EXPECT_EQ(values(nd::argsort(x)), V({1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(nd::argsort(x).dtype(), DType::Float32);
  EXPECT_EQ(values(nd::argsort(x, 1, false, DType::Int32)), V({0, 2, 1, 0, 2, 1}));
  NDArray top = nd::topk(x);  // default: k=1, indices of the largest along the last axis
  EXPECT_EQ(top.shape(), Shape({2, 1}));
  EXPECT_EQ(values(top), V({0, 0}));
  EXPECT_EQ(values(nd::topk(x, -1, 2, "value")), V({3, 2, 9, 8}));
  EXPECT_EQ(values(nd::topk(x, 0, 1, "value", true)), V({3, 1, 2}));
  EXPECT_EQ(values(nd::topk(x, std::nullopt, 3, "indices")), V({3, 5, 4}));
  NDArray mask = nd::topk(x, 1, 2, "mask");
  EXPECT_EQ(mask.shape(), Shape({2, 3}));
  EXPECT_EQ(values(mask), V({1, 0, 1, 1, 0, 1}));
  auto [val, idx] = nd::topk_both(x, -1, 2, true, DType::Int64);
  EXPECT_EQ(values(val), V({1, 2, 7, 8}));
  EXPECT_EQ(idx.dtype(), DType::Int64);
  EXPECT_EQ(idx.to_vector<int64_t>(), std::vector<int64_t>({1, 2, 1, 2}));
  // k < 1 selects every element (a full sort), as in MXNet.
  EXPECT_EQ(values(nd::topk(x, -1, 0, "value")), V({3, 2, 1, 9, 8, 7}));
}

// MXNet's CPU sort leaves the order of equal values unspecified; Braid keeps it stable (the
// earlier position first) in both directions, and ranks NaN above every number.
TEST(Ordering, TiesAreStableAndNanRanksHighest) {
  NDArray t = array({2, 1, 2, 1}, Shape({4}));
  EXPECT_EQ(values(nd::argsort(t)), V({1, 3, 0, 2}));
  EXPECT_EQ(values(nd::argsort(t, -1, false)), V({0, 2, 1, 3}));
  EXPECT_EQ(values(nd::topk(array({1, 3, 3, 2}, Shape({4})), -1, 2)), V({1, 2}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  NDArray n = array({3, nan, 1}, Shape({3}));
  const V up = values(nd::sort(n));
  EXPECT_EQ(up[0], 1);
  EXPECT_EQ(up[1], 3);
  EXPECT_TRUE(std::isnan(up[2]));
  EXPECT_EQ(values(nd::argsort(n, -1, false)), V({1, 0, 2}));
}

TEST(Ordering, MatchesNumpyForEveryAxisAndDirection) {
  V data = tix::random_values(60, 0, 6, 11);
  for (auto& v : data) v = std::floor(v);  // plenty of ties
  NDArray x = array(data, Shape({3, 4, 5}));
  std::vector<std::string> exprs;
  for (int axis : {0, 1, 2, -1}) {
    const std::string ax = std::to_string(axis);
    exprs.push_back("np.sort(x, axis=" + ax + ")");
    exprs.push_back("np.argsort(x, axis=" + ax + ", kind='stable')");
    exprs.push_back("np.argsort(-x, axis=" + ax + ", kind='stable')");  // descending, stable
    exprs.push_back("np.take(np.argsort(-x, axis=" + ax + ", kind='stable'), range(2), axis=" + ax + ")");
    exprs.push_back("np.take(np.sort(x, axis=" + ax + "), range(3), axis=" + ax + ")");
  }
  exprs.push_back("np.argsort(x, axis=None, kind='stable')");
  exprs.push_back("np.sort(x, axis=None)[::-1][:7]");
  const auto ref = tix::numpy({{"x", x}}, exprs);
  size_t k = 0;
  for (int axis : {0, 1, 2, -1}) {
    EXPECT_EQ(values(nd::sort(x, axis)), ref[k++].values) << "sort axis " << axis;
    EXPECT_EQ(values(nd::argsort(x, axis)), ref[k++].values) << "argsort axis " << axis;
    EXPECT_EQ(values(nd::argsort(x, axis, false)), ref[k++].values) << "argsort descending axis " << axis;
    NDArray ti = nd::topk(x, axis, 2);
    EXPECT_EQ(ti.shape(), Shape(ref[k].shape));
    EXPECT_EQ(values(ti), ref[k++].values) << "topk indices axis " << axis;
    EXPECT_EQ(values(nd::topk(x, axis, 3, "value", true)), ref[k++].values) << "topk ascending axis " << axis;
  }
  EXPECT_EQ(values(nd::argsort(x, std::nullopt)), ref[k++].values);
  EXPECT_EQ(values(nd::topk(x, std::nullopt, 7, "value")), ref[k++].values);
}

TEST(Ordering, MaskMatchesNumpy) {
  NDArray x = array(tix::random_values(24, -1, 1, 5), Shape({2, 3, 4}));
  const auto ref =
      tix::numpy({{"x", x}}, {"(lambda m: (np.put_along_axis(m, np.argsort(-x, axis=1)[:, :2, :], 1, axis=1), m)[1])"
                              "(np.zeros_like(x))"});
  EXPECT_EQ(values(nd::topk(x, 1, 2, "mask")), ref[0].values);
}

TEST(Ordering, IntegerDtypes) {
  NDArray x = array({5, -2, 9, 0}, Shape({4}), DType::Int32);
  NDArray s = nd::sort(x, -1, false);
  EXPECT_EQ(s.dtype(), DType::Int32);
  EXPECT_EQ(s.to_vector<int32_t>(), std::vector<int32_t>({9, 5, 0, -2}));
  EXPECT_EQ(values(nd::argsort(x)), V({1, 3, 0, 2}));
  EXPECT_EQ(values(nd::topk(array({5, 200, 7}, Shape({3}), DType::UInt8), -1, 1, "value")), V({200}));
}

TEST(Ordering, BadInputsNameTheOp) {
  NDArray x = array({3, 1, 2, 9, 7, 8}, Shape({2, 3}));
  expect_error_mentioning([&] { nd::topk(x, -1, 4); }, "operator topk: k=4 exceeds the 3 elements");
  expect_error_mentioning([&] { nd::topk(x, 2); }, "operator topk: axis 2 is out of range");
  expect_error_mentioning([&] { nd::sort(x, -3); }, "operator sort: axis -3");
  expect_error_mentioning([&] { nd::argsort(x, 5); }, "operator argsort");
  expect_error_mentioning([&] { nd::topk(x, -1, 1, "top"); }, "operator topk: attribute ret_typ='top'");
  expect_error_mentioning([&] { nd::topk(x, -1, 1, "both"); }, "topk_both");
  expect_error_mentioning(
      [&] {
        nd::invoke1("argsort", {x}, {{"dtype", "int8"}});
      },
      "operator argsort: attribute dtype='int8'");
  expect_error_mentioning([&] { nd::invoke1("sort", {x}, {{"k", "2"}}); }, "operator sort: unknown attribute 'k'");
  NDArray big = array(V(300, 1), Shape({300}));
  expect_error_mentioning([&] { nd::argsort(big, -1, true, DType::UInt8).wait_to_read(); },
                          "operator argsort: dtype uint8 cannot represent");
}

TEST(Ordering, BackwardScattersValueGradients) {
  const auto W = op::OpReq::Write;
  // sort along the last axis: each gradient goes back to where its value came from.
  std::vector<V> g{V(6, -9)};
  tix::run_backward("sort", {}, {{3, 1, 2, 9, 7, 8}}, {Shape({2, 3})}, {{10, 20, 30, 40, 50, 60}, V(6, 0)}, {W}, g);
  EXPECT_EQ(g[0], V({30, 10, 20, 60, 40, 50}));
  // topk values along axis 0, accumulating onto existing gradients.
  g = {V(6, 1)};
  tix::run_backward("topk", {{"axis", "0"}, {"k", "1"}, {"ret_typ", "value"}}, {{3, 1, 8, 9, 7, 2}}, {Shape({2, 3})},
                    {{5, 6, 7}, V(3, 0)}, {op::OpReq::Add}, g);
  EXPECT_EQ(g[0], V({1, 1, 8, 6, 7, 1}));
  // Only the values output of "both" carries a gradient; indices and masks give zeros.
  g = {V(6, -9)};
  tix::run_backward("topk", {{"k", "2"}, {"ret_typ", "both"}}, {{3, 1, 2, 9, 7, 8}}, {Shape({2, 3})},
                    {{1, 2, 3, 4}, V(4, 100)}, {W}, g);
  EXPECT_EQ(g[0], V({1, 0, 2, 3, 0, 4}));
  g = {V(6, -9)};
  tix::run_backward("topk", {{"k", "2"}}, {{3, 1, 2, 9, 7, 8}}, {Shape({2, 3})}, {V(4, 1)}, {W}, g);
  EXPECT_EQ(g[0], V(6, 0));
}

}  // namespace
}  // namespace braid::test
