// mod (Python's sign rule, as MXNet), the logical operators, element-wise math on integer arrays
// and integer gradients of take and topk: values as NumPy gives them.
#include <gtest/gtest.h>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/invoke.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

using V = std::vector<double>;

// np.mod([7, -7, 7, -7, 5.5, 3], [3, 3, -3, -3, 2, 0]) with MXNet's 0 for a zero divisor.
TEST(ModLogicalInt, ModTakesTheDivisorsSign) {
  const V a{7, -7, 7, -7, 5.5, 3}, b{3, 3, -3, -3, 2, 0};
  EXPECT_EQ(nd::invoke1("_mod", {make_array(Shape({6}), a), make_array(Shape({6}), b)}).to_vector<double>(),
            (V{1, 2, -2, -1, 1.5, 0}));
  const V ai{7, -7, 7, -7}, bi{3, 3, -3, -3};
  NDArray m = nd::invoke1("broadcast_mod",
                          {make_array(Shape({4}), ai, DType::Int32), make_array(Shape({4}), bi, DType::Int32)});
  EXPECT_EQ(m.dtype(), DType::Int32);
  EXPECT_EQ(m.to_vector<double>(), (V{1, 2, -2, -1}));
  EXPECT_EQ(nd::invoke1("_mod_scalar", {make_array(Shape({2}), V{-1, 5})}, {{"scalar", "4"}}).to_vector<double>(),
            (V{3, 1}));
  EXPECT_EQ(nd::invoke1("_rmod_scalar", {make_array(Shape({2}), V{4, -3})}, {{"scalar", "9"}}).to_vector<double>(),
            (V{1, 0}));  // 9 mod 4, 9 mod -3
}

TEST(ModLogicalInt, LogicalOperatorsGiveOnesAndZeros) {
  NDArray a = make_array(Shape({4}), V{0, 0, 2, -1}), b = make_array(Shape({4}), V{0, 3, 0, 1});
  EXPECT_EQ(nd::invoke1("_logical_and", {a, b}).to_vector<double>(), (V{0, 0, 0, 1}));
  EXPECT_EQ(nd::invoke1("broadcast_logical_or", {a, b}).to_vector<double>(), (V{0, 1, 1, 1}));
  EXPECT_EQ(nd::invoke1("_logical_xor", {a, b}).to_vector<double>(), (V{0, 1, 1, 0}));
  EXPECT_EQ(nd::invoke1("_logical_and_scalar", {a}, {{"scalar", "1"}}).to_vector<double>(), (V{0, 0, 1, 1}));
}

TEST(ModLogicalInt, RoundingAnIntegerArrayKeepsIt) {
  NDArray big = make_array(Shape({2}), V{50000001, -7}, DType::Int32);
  for (const char* op : {"floor", "ceil", "round", "rint", "trunc", "fix"}) {
    NDArray y = nd::invoke1(op, {big});
    EXPECT_EQ(y.dtype(), DType::Int32) << op;
    EXPECT_EQ(y.to_vector<double>(), (V{50000001, -7})) << op;
  }
  EXPECT_EQ(nd::invoke1("abs", {big}).to_vector<double>(), (V{50000001, 7}));
  // Computed in double and cast back; outside the type it saturates, NaN gives 0.
  EXPECT_EQ(nd::invoke1("sqrt", {make_array(Shape({2}), V{10, 16}, DType::Int64)}).to_vector<double>(), (V{3, 4}));
  EXPECT_EQ(nd::invoke1("exp", {make_array(Shape({1}), V{100}, DType::Int8)}).to_vector<double>(), (V{127}));
  EXPECT_EQ(nd::invoke1("log", {make_array(Shape({1}), V{-1}, DType::Int32)}).to_vector<double>(), (V{0}));
}

TEST(ModLogicalInt, TakeAndTopkGradientsOnIntegerArrays) {
  NDArray x = make_array(Shape({4}), V{5, 1, 9, 3}, DType::Int32);
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope record;
    y = nd::invoke1("take", {x, make_array(Shape({3}), V{2, 2, 0}, DType::Int32)});
  }
  y.backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (V{1, 0, 2, 0}));
  {
    autograd::RecordScope record;
    y = nd::invoke1("topk", {x}, {{"k", "2"}, {"ret_typ", "value"}});
  }
  y.backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (V{1, 0, 1, 0}));
}

}  // namespace
}  // namespace braid::test
