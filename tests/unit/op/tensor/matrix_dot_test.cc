// dot and batch_dot: hand-computed products, NumPy for many shapes and flags, and bad shapes.
#include <gtest/gtest.h>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "braid/op/registry.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

using Floats = std::vector<float>;

TEST(MatrixDot, HandComputedProducts) {
  NDArray a = make_array(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  NDArray b = make_array(Shape({3, 2}), {7, 8, 9, 10, 11, 12});
  NDArray ab = nd::dot(a, b);
  EXPECT_EQ(ab.shape(), Shape({2, 2}));
  EXPECT_EQ(ab.to_vector<float>(), (Floats{58, 64, 139, 154}));

  NDArray c = make_array(Shape({2, 2}), {1, 2, 3, 4});
  NDArray atc = nd::dot(a, c, true, false);  // (3, 2)
  EXPECT_EQ(atc.shape(), Shape({3, 2}));
  EXPECT_EQ(atc.to_vector<float>(), (Floats{13, 18, 17, 24, 21, 30}));

  NDArray d = make_array(Shape({2, 3}), {1, 0, 1, 0, 1, 0});
  EXPECT_EQ(nd::dot(a, d, false, true).to_vector<float>(), (Floats{4, 2, 10, 5}));

  NDArray v = make_array(Shape({3}), {1, 2, 3}), w = make_array(Shape({3}), {4, 5, 6});
  NDArray vw = nd::dot(v, w);
  EXPECT_EQ(vw.shape(), Shape({1}));
  EXPECT_EQ(vw.to_vector<float>(), (Floats{32}));

  // N-D: the last axis of lhs against the first of rhs.
  NDArray t = make_array(Shape({2, 2, 2}), iota(8), DType::Float64);
  NDArray u = make_array(Shape({2}), {1, 10}, DType::Float64);
  NDArray tu = nd::dot(t, u);
  EXPECT_EQ(tu.shape(), Shape({2, 2}));
  EXPECT_EQ(tu.to_vector<double>(), (std::vector<double>{10, 32, 54, 76}));
}

TEST(MatrixDot, BatchDotHandComputed) {
  NDArray a = make_array(Shape({2, 2, 2}), {1, 2, 3, 4, 0, 1, 1, 0});
  NDArray b = make_array(Shape({2, 2, 2}), {5, 6, 7, 8, 1, 2, 3, 4});
  EXPECT_EQ(nd::batch_dot(a, b).to_vector<float>(), (Floats{19, 22, 43, 50, 3, 4, 1, 2}));
  EXPECT_EQ(nd::batch_dot(a, b, false, true).to_vector<float>(), (Floats{17, 23, 39, 53, 2, 4, 1, 3}));
}

struct DotCase {
  std::vector<int64_t> lhs_rest;
  int64_t k;
  std::vector<int64_t> rhs_rest;
};

TEST(MatrixDot, MatchesNumpyTensordot) {
  const std::vector<DotCase> cases = {
      {{3}, 4, {5}},     {{2, 3}, 4, {5}}, {{}, 4, {3}},        {{3}, 4, {}},     {{2, 3}, 4, {2, 3}},
      {{64}, 100, {70}}, {{1}, 7, {1}},    {{5, 1}, 3, {1, 2}}, {{67}, 90, {41}},  // float64: split by rows over the
                                                                                   // threads, unevenly
  };
  for (const auto& c : cases)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        if (c.lhs_rest.empty() && c.rhs_rest.empty()) continue;
        std::vector<int64_t> l = c.lhs_rest, r = c.rhs_rest;
        if (ta)
          l.insert(l.begin(), c.k);
        else
          l.push_back(c.k);
        if (tb)
          r.push_back(c.k);
        else
          r.insert(r.begin(), c.k);
        Shape ls(l), rs(r);
        auto lv = random_values(ls.size(), 1), rv = random_values(rs.size(), 2);
        const std::string expr =
            cat("np.tensordot(a, b, axes=(", ta ? 0 : ls.ndim() - 1, ", ", tb ? rs.ndim() - 1 : 0, "))");
        auto ref = numpy_eval(expr, {{ls, lv}, {rs, rv}});
        SCOPED_TRACE(cat(ls, " x ", rs, " ta=", ta, " tb=", tb));
        for (DType t : {DType::Float32, DType::Float64}) {
          NDArray out = nd::dot(make_array(ls, lv, t), make_array(rs, rv, t), ta, tb);
          expect_matches(out, ref, t == DType::Float32 ? 1e-5 : 1e-12);
        }
      }
}

TEST(MatrixDot, BatchDotMatchesNumpyMatmul) {
  const std::vector<std::vector<int64_t>> batches = {{1}, {3}, {2, 3}};
  for (const auto& batch : batches)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        const int64_t m = 4, k = 5, n = 3;
        std::vector<int64_t> l = batch, r = batch;
        l.insert(l.end(), {ta ? k : m, ta ? m : k});
        r.insert(r.end(), {tb ? n : k, tb ? k : n});
        Shape ls(l), rs(r);
        auto lv = random_values(ls.size(), 3), rv = random_values(rs.size(), 4);
        const std::string expr =
            cat("np.matmul(", ta ? "np.swapaxes(a, -1, -2)" : "a", ", ", tb ? "np.swapaxes(b, -1, -2)" : "b", ")");
        auto ref = numpy_eval(expr, {{ls, lv}, {rs, rv}});
        SCOPED_TRACE(cat(ls, " x ", rs, " ta=", ta, " tb=", tb));
        for (DType t : {DType::Float32, DType::Float64}) {
          NDArray out = nd::batch_dot(make_array(ls, lv, t), make_array(rs, rv, t), ta, tb);
          expect_matches(out, ref, t == DType::Float32 ? 1e-5 : 1e-12);
        }
      }
}

TEST(MatrixDot, EmptyExtentsGiveEmptyOrZeroProducts) {
  // Contracting an extent of 0 sums nothing: zeros (this once divided by zero and killed the
  // process); an empty outer extent gives an empty product.
  for (DType t : {DType::Float32, DType::Float64}) {
    NDArray z = nd::dot(NDArray(Shape({2, 0}), cpu(), t), NDArray(Shape({0, 3}), cpu(), t));
    EXPECT_EQ(z.shape(), Shape({2, 3}));
    EXPECT_EQ(z.to_vector<double>(), std::vector<double>(6, 0.0));
    EXPECT_EQ(nd::dot(NDArray(Shape({3, 0}), cpu(), t), NDArray(Shape({3, 2}), cpu(), t), true).shape(), Shape({0, 2}));
    EXPECT_EQ(nd::dot(NDArray(Shape({0, 4}), cpu(), t), NDArray(Shape({4, 5}), cpu(), t)).shape(), Shape({0, 5}));
    NDArray bz = nd::batch_dot(NDArray(Shape({2, 3, 0}), cpu(), t), NDArray(Shape({2, 0, 4}), cpu(), t));
    EXPECT_EQ(bz.to_vector<double>(), std::vector<double>(24, 0.0));
  }
}

TEST(MatrixDot, AnUnknownContractedExtentIsTheOtherSides) {
  // dot: a deferred weight (0: unknown) learns the input's size, with and without transposes;
  // the batch size left unknown stays unknown in the output.
  struct Case {
    op::AttrMap attrs;
    Shape lhs, rhs, lhs_after, rhs_after, out;
  };
  const std::vector<Case> cases = {
      {{}, Shape({64, 1000}), Shape({0, 100}), Shape({64, 1000}), Shape({1000, 100}), Shape({64, 100})},
      {{{"transpose_b", "True"}}, Shape({8, 3}), Shape({5, 0}), Shape({8, 3}), Shape({5, 3}), Shape({8, 5})},
      {{{"transpose_a", "True"}}, Shape({0, 4}), Shape({6, 2}), Shape({6, 4}), Shape({6, 2}), Shape({4, 2})},
      {{}, Shape({0, 7}), Shape({0, 2}), Shape({0, 7}), Shape({7, 2}), Shape({0, 2})},
  };
  const op::OpDef& def = op::Registry::get().find("dot");
  for (const Case& c : cases) {
    SCOPED_TRACE(cat(c.lhs, " ", c.rhs));
    std::vector<Shape> in = {c.lhs, c.rhs}, out(1), aux;
    EXPECT_FALSE(def.infer_shape(def.parse(c.attrs), in, out, aux));
    EXPECT_EQ(in[0], c.lhs_after);
    EXPECT_EQ(in[1], c.rhs_after);
    if (c.out.fully_known()) {
      EXPECT_EQ(out[0], c.out);
    }
  }
  // batch_dot leaves it unknown, and so its output (MXNet's test_batch_dot_partial_shape).
  const op::OpDef& batched = op::Registry::get().find("batch_dot");
  std::vector<Shape> in = {Shape({0, 3, 4}), Shape({0, 0, 5})}, out(1), aux;
  EXPECT_FALSE(batched.infer_shape(batched.parse({}), in, out, aux));
  EXPECT_EQ(in[1], Shape({0, 0, 5}));
  EXPECT_FALSE(out[0].known());
}

TEST(MatrixDot, BadShapesAndAttributesThrow) {
  NDArray a(Shape({2, 3})), b(Shape({4, 5}));
  expect_error([&] { nd::dot(a, b); }, {"dot", "(2, 3)", "(4, 5)", "3", "4"});
  expect_error([&] { nd::dot(a, NDArray(Shape({2, 5})), false, false); }, {"dot", "(2, 5)"});
  expect_error([&] { nd::dot(NDArray(Shape({3})), NDArray(Shape({3})), true); }, {"dot", "cannot transpose vectors"});
  expect_error([&] { nd::dot(NDArray(Shape({3})), NDArray(Shape({4}))); }, {"dot", "(3,)", "(4,)"});
  expect_error(
      [&] {
        nd::dot(NDArray(Shape({2, 2}), cpu(), DType::Int32), NDArray(Shape({2, 2}), cpu(), DType::Int32));
      },
      {"dot", "int32"});
  expect_error([&] { nd::invoke1("dot", {a, a}, {{"transpose_a", "maybe"}}); }, {"dot", "transpose_a"});
  expect_error([&] { nd::invoke1("dot", {a, a}, {{"forward_stype", "dense"}}); }, {"dot", "forward_stype", "dense"});
  expect_error(
      [&] {
        nd::batch_dot(NDArray(Shape({2, 3, 4})), NDArray(Shape({3, 4, 5})));
      },
      {"batch_dot", "(2, 3, 4)", "(3, 4, 5)"});
  expect_error(
      [&] {
        nd::batch_dot(NDArray(Shape({2, 3, 4})), NDArray(Shape({2, 5, 4})));
      },
      {"batch_dot", "(2, 3, 4)", "(2, 5, 4)"});
  expect_error([&] { nd::batch_dot(a, a); }, {"batch_dot", "rank"});
}

}  // namespace
}  // namespace braid::test
