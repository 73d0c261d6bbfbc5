// concat, stack and split: hand-computed values in several dtypes, NumPy, shape inference and
// bad shapes.
#include <gtest/gtest.h>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "braid/op/registry.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

using Floats = std::vector<float>;

TEST(MatrixJoin, ConcatHandComputed) {
  for (DType t : {DType::Float32, DType::Float64, DType::Int32, DType::UInt8}) {
    NDArray a = make_array(Shape({2, 1}), {1, 2}, t);
    NDArray b = make_array(Shape({2, 2}), {3, 4, 5, 6}, t);
    NDArray c = nd::concat({a, b});
    EXPECT_EQ(c.shape(), Shape({2, 3}));
    EXPECT_EQ(c.dtype(), t);
    EXPECT_EQ(c.to_vector<float>(), (Floats{1, 3, 4, 2, 5, 6}));
  }
  NDArray a = make_array(Shape({1, 2}), {1, 2}), b = make_array(Shape({2, 2}), {3, 4, 5, 6});
  EXPECT_EQ(nd::concat({a, b}, 0).to_vector<float>(), (Floats{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(nd::invoke1("Concat", {a, a}, {{"num_args", "2"}, {"dim", "-1"}}).to_vector<float>(), (Floats{1, 2, 1, 2}));
  NDArray single = nd::concat({b});
  EXPECT_EQ(single.to_vector<float>(), (Floats{3, 4, 5, 6}));
}

TEST(MatrixJoin, StackHandComputed) {
  NDArray a = make_array(Shape({2}), {1, 2}, DType::Int64), b = make_array(Shape({2}), {3, 4}, DType::Int64);
  NDArray s0 = nd::stack({a, b});
  EXPECT_EQ(s0.shape(), Shape({2, 2}));
  EXPECT_EQ(s0.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4}));
  NDArray s1 = nd::stack({a, b}, 1);
  EXPECT_EQ(s1.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 2, 4}));
  NDArray s2 = nd::stack({a, b, a}, -1);
  EXPECT_EQ(s2.shape(), Shape({2, 3}));
  EXPECT_EQ(s2.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 1, 2, 4, 2}));
}

TEST(MatrixJoin, SplitHandComputed) {
  NDArray x = make_array(Shape({2, 4}), iota(8));
  auto parts = nd::split(x, 2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].shape(), Shape({2, 2}));
  EXPECT_EQ(parts[0].to_vector<float>(), (Floats{0, 1, 4, 5}));
  EXPECT_EQ(parts[1].to_vector<float>(), (Floats{2, 3, 6, 7}));
  auto rows = nd::split(x, 2, 0, true);
  EXPECT_EQ(rows[1].shape(), Shape({4}));
  EXPECT_EQ(rows[1].to_vector<float>(), (Floats{4, 5, 6, 7}));
  auto cols = nd::invoke("SliceChannel", {x}, {{"num_outputs", "4"}, {"axis", "-1"}, {"squeeze_axis", "1"}});
  ASSERT_EQ(cols.size(), 4u);
  EXPECT_EQ(cols[3].shape(), Shape({2}));
  EXPECT_EQ(cols[3].to_vector<float>(), (Floats{3, 7}));
}

TEST(MatrixJoin, MatchNumpy) {
  const Shape s1({2, 3, 4}), s2({2, 5, 4});
  auto v1 = random_values(s1.size(), 5), v2 = random_values(s2.size(), 6), v3 = random_values(s1.size(), 7);
  expect_matches(nd::concat({make_array(s1, v1), make_array(s2, v2)}),
                 numpy_eval("np.concatenate((a, b), axis=1)", {{s1, v1}, {s2, v2}}));
  expect_matches(nd::stack({make_array(s1, v1), make_array(s1, v3)}, 2),
                 numpy_eval("np.stack((a, b), axis=2)", {{s1, v1}, {s1, v3}}));
  auto parts = nd::split(make_array(s2, v2), 5, 1);
  expect_matches(parts[3], numpy_eval("np.split(a, 5, axis=1)[3]", {{s2, v2}}));
}

TEST(MatrixJoin, ConcatInfersOneMissingInputFromOutput) {
  const auto& def = op::Registry::get().find("concat");
  std::any p = def.parse({{"num_args", "2"}, {"dim", "0"}});
  std::vector<Shape> in = {Shape({2, 3}), Shape()}, out = {Shape({5, 3})}, aux;
  EXPECT_TRUE(def.infer_shape(p, in, out, aux));
  EXPECT_EQ(in[1], Shape({3, 3}));
  EXPECT_EQ(def.list_arguments(p), (std::vector<std::string>{"arg0", "arg1"}));
}

TEST(MatrixJoin, BadShapesThrow) {
  NDArray a(Shape({2, 3})), b(Shape({3, 3})), c(Shape({2, 3, 1}));
  expect_error([&] { nd::concat({a, b}); }, {"concat", "(2, 3)", "(3, 3)", "dimension 0"});
  expect_error([&] { nd::concat({a, c}); }, {"concat", "(2, 3)", "(2, 3, 1)", "rank"});
  expect_error([&] { nd::concat({a, a}, 2); }, {"concat", "dim=2", "(2, 3)"});
  expect_error([&] { nd::invoke1("concat", {a, a}, {{"num_args", "3"}}); }, {"Concat", "3 inputs"});
  expect_error([&] { nd::invoke1("concat", {}, {{"num_args", "0"}}); }, {"concat", "num_args=0"});
  expect_error([&] { nd::stack({a, b}); }, {"stack", "(2, 3)", "(3, 3)"});
  expect_error([&] { nd::stack({a, a}, 3); }, {"stack", "axis=3"});
  expect_error([&] { nd::split(a, 2); }, {"split", "(2, 3)", "not divisible by 2"});
  expect_error(
      [&] {
        nd::split(a, 3, 1, false);
        nd::split(a, 1, 1, true);
      },
      {"split", "squeeze_axis"});
  expect_error([&] { nd::split(a, 1, 2); }, {"split", "axis=2"});
  expect_error([&] { nd::invoke("split", {a}, {{"num_outputs", "3"}, {"sections", "2"}}); }, {"split", "sections"});
}

}  // namespace
}  // namespace braid::test
