// swapaxes, reshape_like, _eye, make_loss and MakeLoss: values as MXNet's documentation gives
// them, gradients, and errors naming the attribute.
#include <gtest/gtest.h>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/reduce.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

TEST(ShapeLikeOps, SwapaxesExchangesTwoAxes) {
  NDArray x = make_array(Shape({2, 3}), iota(6));
  NDArray y = nd::invoke1("swapaxes", {x}, {{"dim1", "0"}, {"dim2", "1"}});
  EXPECT_EQ(y.shape(), Shape({3, 2}));
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  NDArray z = nd::invoke1("SwapAxis", {make_array(Shape({2, 1, 3}), iota(6))}, {{"dim1", "-1"}, {"dim2", "0"}});
  EXPECT_EQ(z.shape(), Shape({3, 1, 2}));
  EXPECT_EQ(z.to_vector<double>(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_THROW(nd::invoke1("swapaxes", {x}, {{"dim1", "2"}}), Error);
}

// MXNet's examples: (30,7) like (15,2,4) with lhs [0,1) and rhs [0,2) gives (15,2,7); (30,12)
// with lhs_begin=-1 and rhs (4,2,2,3) from 1 gives (30,2,2,3).
TEST(ShapeLikeOps, ReshapeLikeTakesTheShapeOfTheOtherArray) {
  NDArray x = make_array(Shape({2, 3}), iota(6));
  NDArray y = nd::invoke1("reshape_like", {x, NDArray(Shape({3, 2}))});
  EXPECT_EQ(y.shape(), Shape({3, 2}));
  EXPECT_EQ(y.to_vector<double>(), iota(6));
  auto shape_of = [](const Shape& lhs, const Shape& rhs, const op::AttrMap& attrs) {
    return nd::invoke1("reshape_like", {NDArray(lhs), NDArray(rhs)}, attrs).shape();
  };
  EXPECT_EQ(shape_of(Shape({30, 7}), Shape({15, 2, 4}),
                     {{"lhs_begin", "0"}, {"lhs_end", "1"}, {"rhs_begin", "0"}, {"rhs_end", "2"}}),
            Shape({15, 2, 7}));
  EXPECT_EQ(shape_of(Shape({30, 12}), Shape({4, 2, 2, 3}), {{"lhs_begin", "-1"}, {"rhs_begin", "1"}}),
            Shape({30, 2, 2, 3}));
  EXPECT_THROW(shape_of(Shape({2, 3}), Shape({4}), {}), Error);
}

TEST(ShapeLikeOps, ReshapeLikeSendsTheGradientToLhsOnly) {
  NDArray x = make_array(Shape({2, 3}), iota(6)), like = make_array(Shape({6}), iota(6));
  x.attach_grad();
  like.attach_grad();
  NDArray y;
  {
    autograd::RecordScope record;
    y = nd::sum(nd::invoke1("reshape_like", {x, like}) * make_array(Shape({6}), iota(6, 1)));
  }
  y.backward();
  EXPECT_EQ(x.grad().shape(), Shape({2, 3}));
  EXPECT_EQ(x.grad().to_vector<double>(), iota(6, 1));
  EXPECT_EQ(like.grad().to_vector<double>(), std::vector<double>(6, 0.0));
}

TEST(ShapeLikeOps, EyeHasOnesOnTheChosenDiagonal) {
  EXPECT_EQ(nd::invoke1("_eye", {}, {{"N", "2"}}).to_vector<double>(), (std::vector<double>{1, 0, 0, 1}));
  NDArray e = nd::invoke1("_eye", {}, {{"N", "2"}, {"M", "3"}, {"k", "1"}, {"dtype", "int32"}});
  EXPECT_EQ(e.shape(), Shape({2, 3}));
  EXPECT_EQ(e.dtype(), DType::Int32);
  EXPECT_EQ(e.to_vector<double>(), (std::vector<double>{0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(nd::invoke1("_eye", {}, {{"N", "3"}, {"k", "-2"}}).to_vector<double>(),
            (std::vector<double>{0, 0, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_THROW(nd::invoke1("_eye", {}, {{"N", "-1"}}), Error);
}

// The gradient of make_loss is ones whatever comes from above; MakeLoss scales and normalizes it.
TEST(ShapeLikeOps, MakeLossGradientsIgnoreTheHeadGradient) {
  NDArray x = make_array(Shape({2, 3}), {-1, 2, 3, 0.5, -4, 6});
  auto gradient = [&](const std::string& op, const op::AttrMap& attrs) {
    NDArray v = x.copy();
    v.attach_grad();
    NDArray y;
    {
      autograd::RecordScope record;
      y = nd::invoke1(op, {v}, attrs);
    }
    EXPECT_EQ(y.to_vector<double>(), x.to_vector<double>());
    y.backward(make_array(Shape({2, 3}), {5, 5, 5, 5, 5, 5}));
    return v.grad().to_vector<double>();
  };
  EXPECT_EQ(gradient("make_loss", {}), std::vector<double>(6, 1.0));
  EXPECT_EQ(gradient("MakeLoss", {{"grad_scale", "3"}}), std::vector<double>(6, 3.0));
  EXPECT_EQ(gradient("MakeLoss", {{"grad_scale", "3"}, {"normalization", "batch"}}), std::vector<double>(6, 1.5));
  // 4 elements above valid_thresh=0
  EXPECT_EQ(gradient("MakeLoss", {{"normalization", "valid"}}), std::vector<double>(6, 0.25));
  EXPECT_THROW(gradient("MakeLoss", {{"normalization", "mean"}}), Error);
}

}  // namespace
}  // namespace braid::test
