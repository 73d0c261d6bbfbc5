// Reductions (sum, mean, prod, nansum, nanprod, max, min, norm, argmax, argmin): hand-worked
// values, NumPy over many axis combinations, errors, and the backward rules checked directly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/reduce.h"
#include "unit/op/tensor/index_test_util.h"

namespace braid::test {
namespace {

using tix::array;
using tix::expect_error_mentioning;
using tix::values;
using V = std::vector<double>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void expect_near_nan(const V& got, const V& want, double atol, double rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i])) << what << " element " << i;
    }
  }
}

TEST(Reduce, HandWorkedValues) {
  NDArray x = array({1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  NDArray all = nd::sum(x);
  EXPECT_EQ(all.shape(), Shape({1}));
  EXPECT_EQ(values(all), V({21}));
  EXPECT_EQ(values(nd::sum(x, {0})), V({5, 7, 9}));
  NDArray kept = nd::sum(x, {1}, true);
  EXPECT_EQ(kept.shape(), Shape({2, 1}));
  EXPECT_EQ(values(kept), V({6, 15}));
  EXPECT_EQ(values(nd::sum(x, {1}, false, true)), V({5, 7, 9}));  // exclude: reduce axis 0
  EXPECT_EQ(nd::sum(x, {-1}, true, true).shape(), Shape({1, 3}));
  EXPECT_EQ(values(nd::mean(x, {1})), V({2, 5}));
  EXPECT_EQ(values(nd::prod(x, {0})), V({4, 10, 18}));
  EXPECT_EQ(values(nd::max(x, {1})), V({3, 6}));
  EXPECT_EQ(values(nd::min(x)), V({1}));
  EXPECT_DOUBLE_EQ(values(nd::norm(x))[0], std::sqrt(91.0));
  EXPECT_EQ(values(nd::norm(x, 1, {1})), V({6, 15}));
  EXPECT_EQ(values(nd::argmax(x, 1)), V({2, 2}));
  NDArray am = nd::argmin(x);
  EXPECT_EQ(am.shape(), Shape({1}));
  EXPECT_EQ(values(am), V({0}));
  EXPECT_EQ(nd::argmax(x, std::nullopt, true).shape(), Shape({1, 1}));
  EXPECT_EQ(nd::argmax(x, 0, true).shape(), Shape({1, 3}));
  EXPECT_EQ(nd::argmax(x, 0).dtype(), DType::Float64);  // positions in the input dtype, as MXNet
  // MXNet's aliases and string spellings.
  EXPECT_EQ(values(nd::invoke1("sum_axis", {x}, {{"axis", "1"}})), V({6, 15}));
  EXPECT_EQ(values(nd::invoke1("max_axis", {x}, {{"axis", "(0,)"}})), V({4, 5, 6}));
  EXPECT_EQ(values(nd::invoke1("min_axis", {x}, {{"axis", "()"}})), V({1}));
  EXPECT_EQ(values(nd::invoke1("mean", {x}, {{"axis", "None"}, {"keepdims", "True"}})), V({3.5}));
  EXPECT_EQ(values(nd::invoke1("argmax_channel", {array({1, 5, 7, 2, 0, 3}, Shape({3, 2}))})), V({1, 0, 1}));
}

TEST(Reduce, NanHandling) {
  NDArray x = array({1, kNaN, 3, 4}, Shape({2, 2}));
  EXPECT_EQ(values(nd::nansum(x, {1})), V({1, 7}));
  EXPECT_EQ(values(nd::nanprod(x, {1})), V({1, 12}));
  const V mx = values(nd::max(x, {1}));  // NaN propagates, as in NumPy
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_EQ(mx[1], 4);
  EXPECT_EQ(values(nd::argmax(x, 1)), V({1, 1}));  // the NaN wins, as np.argmax
}

// Every reducer over every axis combination, keepdims and exclude, in float64 and float32.
TEST(Reduce, MatchesNumpyOverAxisCombinations) {
  const std::vector<std::vector<int>> axes = {{}, {0}, {1}, {-1}, {0, 2}, {1, 2}, {2, 0}, {0, 1, 2}};
  const std::vector<std::string> ops = {"sum", "mean", "prod", "max", "min", "nansum", "norm1", "norm2"};
  for (const Shape& shape : {Shape({7, 37, 11}), Shape({2, 3, 40})}) {
    V data = tix::random_values(shape.size(), 0.5, 1.5);
    for (size_t i = 0; i < data.size(); i += 3) data[i] = -data[i];
    NDArray x64 = array(data, shape);
    NDArray x32 = array(data, shape, DType::Float32);
    std::vector<std::string> exprs;
    std::vector<std::function<NDArray(const NDArray&)>> runs;
    for (const auto& op : ops)
      for (const auto& ax : axes)
        for (bool keepdims : {false, true})
          for (bool exclude : {false, true}) {
            if (op.starts_with("norm") && exclude) continue;
            std::vector<int> reduced;  // what NumPy reduces
            for (int a = 0; a < 3; ++a) {
              bool listed = false;
              for (int b : ax) listed |= (b + 3) % 3 == a;
              if (ax.empty() || listed != exclude) reduced.push_back(a);
            }
            std::string axis = "(";
            for (int a : reduced) axis += std::to_string(a) + ",";
            axis += ")";
            const std::string kd = keepdims ? "True" : "False";
            const std::string base = op.starts_with("norm") ? "sum" : op;
            std::string arg = op == "norm1" ? "np.abs(x)" : (op == "norm2" ? "x**2" : "x");
            std::string e = "np." + base + "(" + arg + ", axis=" + axis + ", keepdims=" + kd + ")";
            exprs.push_back(op == "norm2" ? "np.sqrt(" + e + ")" : e);
            runs.push_back([=](const NDArray& x) -> NDArray {
              if (op == "norm1" || op == "norm2") return nd::norm(x, op == "norm1" ? 1 : 2, ax, keepdims);
              op::AttrMap a{{"keepdims", kd}, {"exclude", exclude ? "True" : "False"}};
              if (!ax.empty()) a["axis"] = Shape(std::vector<int64_t>(ax.begin(), ax.end())).str();
              return nd::invoke1(op, {x}, a);
            });
          }
    const auto ref = tix::numpy({{"x", x64}}, exprs);
    for (size_t i = 0; i < exprs.size(); ++i) {
      NDArray y64 = runs[i](x64), y32 = runs[i](x32);
      EXPECT_EQ(y64.shape(), tix::mxnet_shape(ref[i])) << exprs[i];
      EXPECT_EQ(y32.dtype(), DType::Float32) << exprs[i];
      expect_near_nan(values(y64), ref[i].values, 1e-12, 1e-12, exprs[i] + " float64");
      expect_near_nan(values(y32), ref[i].values, 1e-4, 1e-5, exprs[i] + " float32");
    }
  }
}

TEST(Reduce, ArgExtremaMatchNumpyWithTies) {
  // Values in {0, 1, 2} make many ties; NumPy and MXNet both report the first position.
  V data = tix::random_values(60, 0, 3, 7);
  for (auto& v : data) v = std::floor(v);
  NDArray x = array(data, Shape({3, 4, 5}));
  std::vector<std::string> exprs = {"np.argmax(x)", "np.argmin(x)"};
  for (int a : {0, 1, 2, -1}) {
    exprs.push_back("np.argmax(x, axis=" + std::to_string(a) + ")");
    exprs.push_back("np.argmin(x, axis=" + std::to_string(a) + ")");
  }
  const auto ref = tix::numpy({{"x", x}}, exprs);
  EXPECT_EQ(values(nd::argmax(x)), ref[0].values);
  EXPECT_EQ(values(nd::argmin(x)), ref[1].values);
  size_t k = 2;
  for (int a : {0, 1, 2, -1}) {
    NDArray mx = nd::argmax(x, a), mn = nd::argmin(x, a);
    EXPECT_EQ(mx.shape(), Shape(ref[k].shape));
    EXPECT_EQ(values(mx), ref[k++].values) << "argmax axis " << a;
    EXPECT_EQ(values(mn), ref[k++].values) << "argmin axis " << a;
  }
}

TEST(Reduce, IntegerDtypes) {
  NDArray x = array({3, -1, 7, 2, 7, 0}, Shape({2, 3}), DType::Int32);
  EXPECT_EQ(nd::sum(x).dtype(), DType::Int32);
  EXPECT_EQ(nd::sum(x).to_vector<int32_t>(), std::vector<int32_t>({18}));
  EXPECT_EQ(nd::max(x, {1}).to_vector<int32_t>(), std::vector<int32_t>({7, 7}));
  EXPECT_EQ(nd::min(x, {0}).to_vector<int32_t>(), std::vector<int32_t>({2, -1, 0}));
  EXPECT_EQ(nd::prod(x, {1}).to_vector<int32_t>(), std::vector<int32_t>({-21, 0}));
  EXPECT_EQ(nd::argmax(x).to_vector<int32_t>(), std::vector<int32_t>({2}));
  NDArray u8 = array({200, 100, 50}, Shape({3}), DType::UInt8);
  EXPECT_EQ(values(nd::max(u8)), V({200}));
  EXPECT_EQ(values(nd::argmin(u8)), V({2}));
}

TEST(Reduce, NormWithOutDtypeGivesThatDtype) {
  NDArray x = array({3, 4, 0, 12}, Shape({2, 2}), DType::Float32);
  NDArray y = nd::invoke1("norm", {x}, {{"axis", "1"}, {"out_dtype", "float64"}});
  EXPECT_EQ(y.dtype(), DType::Float64);
  EXPECT_EQ(y.to_vector<double>(), std::vector<double>({5, 12}));
  NDArray same = nd::invoke1("norm", {x}, {{"ord", "1"}, {"out_dtype", "float32"}});
  EXPECT_EQ(same.to_vector<float>(), std::vector<float>({19}));
}

TEST(Reduce, BadInputsNameTheOp) {
  NDArray x = array({1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  expect_error_mentioning([&] { nd::sum(x, {2}); }, "operator sum: axis 2 is out of range");
  expect_error_mentioning([&] { nd::mean(x, {-3}); }, "operator mean");
  expect_error_mentioning([&] { nd::max(x, {1, -1}); }, "operator max: axis 1 is listed twice");
  expect_error_mentioning([&] { nd::norm(x, 3); }, "operator norm: ord=3");
  expect_error_mentioning([&] { nd::norm(x, 2, {5}); }, "operator norm");
  expect_error_mentioning([&] { nd::argmax(x, 2); }, "operator argmax");
  expect_error_mentioning([&] { nd::invoke1("sum", {x}, {{"axes", "1"}}); }, "operator sum: unknown attribute 'axes'");
  expect_error_mentioning(
      [&] {
        nd::invoke1("prod", {x}, {{"keepdims", "maybe"}});
      },
      "operator prod: attribute keepdims='maybe'");
  expect_error_mentioning([&] { nd::invoke1("norm", {x}, {{"out_dtype", "float7"}}); }, "float7");
  expect_error_mentioning([&] { nd::nansum(array({1, 2}, Shape({2}), DType::Int32)).wait_to_read(); }, "nansum");
}

// The input gradient of a one-input reduction, starting from `initial`.
V backward(const std::string& name, const op::AttrMap& attrs, V x, const Shape& xs, V g, op::OpReq req, V initial) {
  std::vector<V> grads{std::move(initial)};
  tix::run_backward(name, attrs, {std::move(x)}, {xs}, {std::move(g)}, {req}, grads);
  return grads[0];
}

TEST(Reduce, BackwardRules) {
  const Shape s({2, 3});
  const auto W = op::OpReq::Write;
  // max routes to every position equal to the maximum (MXNet's rule for ties).
  EXPECT_EQ(backward("max", {{"axis", "1"}}, {5, 1, 5, 2, 7, 3}, s, {10, 20}, W, V(6, -9)), V({10, 0, 10, 0, 20, 0}));
  EXPECT_EQ(backward("min", {}, {5, 1, 5, 1, 7, 3}, s, {2}, W, V(6, -9)), V({0, 2, 0, 2, 0, 0}));
  // prod stays exact with zeros: one zero gets the product of the others, two zeros give 0.
  EXPECT_EQ(backward("prod", {{"axis", "1"}}, {2, 0, 3, 0, 4, 0}, s, {1, 1}, W, V(6, -9)), V({0, 6, 0, 0, 0, 0}));
  EXPECT_EQ(backward("prod", {{"axis", "0"}}, {2, 5, 3, 4, 1, 6}, s, {1, 2, 3}, W, V(6, -9)), V({4, 2, 18, 2, 10, 9}));
  EXPECT_EQ(backward("nanprod", {}, {2, kNaN, 3, 1, 1, 1}, s, {1}, W, V(6, -9)), V({3, 0, 2, 6, 6, 6}));
  EXPECT_EQ(backward("mean", {{"axis", "0"}}, V(6, 1), s, {2, 4, 6}, W, V(6, -9)), V({1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(backward("norm", {{"ord", "1"}}, {-2, 0, 3, 1, -1, 4}, s, {2}, W, V(6, -9)), V({-2, 0, 2, 2, -2, 2}));
  EXPECT_EQ(backward("norm", {}, V(6, 0), s, {1}, W, V(6, -9)), V(6, 0));  // 0 at a zero norm
  // req Add accumulates, req Null leaves the gradient alone.
  EXPECT_EQ(backward("sum", {{"axis", "1"}}, V(6, 0), s, {1, 2}, op::OpReq::Add, V(6, 10)),
            V({11, 11, 11, 12, 12, 12}));
  EXPECT_EQ(backward("sum", {}, V(6, 0), s, {1}, op::OpReq::Null, V(6, 10)), V(6, 10));
  EXPECT_EQ(backward("sum", {{"axis", "1"}}, V(6, 0), s, {1, 2}, op::OpReq::Write, V(6, 10)), V({1, 1, 1, 2, 2, 2}));
}

}  // namespace
}  // namespace braid::test
