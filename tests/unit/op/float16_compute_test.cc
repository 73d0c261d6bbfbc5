// float16 and bfloat16 arrays on operators whose kernels compute in float32
// (src/op/common/float16_compute.cc): each result equals the float32 computation on the same
// (16-bit) values rounded to the 16-bit type, in forward, backward with write and add, for
// in-place updates and for BatchNorm's moving statistics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"

namespace braid::test {
namespace {

const DType k16bit[] = {DType::Float16, DType::BFloat16};

// Exact: both sides round the same float32 numbers.
void expect_same(const NDArray& got, const NDArray& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  EXPECT_EQ(got.to_vector<double>(), want.to_vector<double>()) << what;
}

// `op` on 16-bit copies of `inputs` against float32 on the same values, rounded.
void expect_matches_float32(const std::string& op, const std::vector<NDArray>& inputs, const op::AttrMap& attrs,
                            DType dtype) {
  std::vector<NDArray> low, wide;
  for (const NDArray& x : inputs) {
    low.push_back(x.astype(dtype));
    wide.push_back(low.back().astype(DType::Float32));
  }
  const std::vector<NDArray> got = nd::invoke(op, low, attrs), want = nd::invoke(op, wide, attrs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    expect_same(got[i], want[i].astype(dtype), cat(op, " ", dtype_name(dtype), " output ", i));
}

TEST(Float16Compute, OperatorsComputeInFloat32AndRound) {
  nd::seed(3);
  const NDArray a = nd::random_uniform(-2, 2, Shape({4, 6})), b = nd::random_uniform(-2, 2, Shape({4, 6}));
  const NDArray row = nd::random_uniform(-2, 2, Shape({1, 6}));
  const NDArray image = nd::random_uniform(-1, 1, Shape({2, 3, 6, 6})),
                kernel = nd::random_uniform(-1, 1, Shape({4, 3, 3, 3}));
  const NDArray weight = nd::random_uniform(-1, 1, Shape({5, 6})), bias = nd::random_uniform(-1, 1, Shape({5}));
  for (DType t : k16bit) {
    expect_matches_float32("exp", {a}, {}, t);
    expect_matches_float32("elemwise_add", {a, b}, {}, t);
    expect_matches_float32("broadcast_mul", {a, row}, {}, t);
    expect_matches_float32("_mul_scalar", {a}, {{"scalar", "3"}}, t);
    expect_matches_float32("sum", {a}, {{"axis", "1"}}, t);
    expect_matches_float32("softmax", {a}, {}, t);
    expect_matches_float32("Activation", {a}, {{"act_type", "relu"}}, t);
    expect_matches_float32("FullyConnected", {a, weight, bias}, {{"num_hidden", "5"}}, t);
    expect_matches_float32("dot", {a, weight}, {{"transpose_b", "True"}}, t);
    expect_matches_float32("Convolution", {image, kernel},
                           {{"kernel", "(3,3)"}, {"num_filter", "4"}, {"no_bias", "True"}}, t);
    expect_matches_float32("Pooling", {image}, {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}}, t);
    expect_matches_float32("_ones", {}, {{"shape", "(2,3)"}, {"dtype", dtype_name(t)}}, t);
  }
}

// d/dx sum(x * x) = 2x, into a write gradient and an accumulating one.
TEST(Float16Compute, GradientsAreWrittenAndAddedIn16Bit) {
  for (DType t : k16bit) {
    NDArray x = nd::array({0.5f, -1.25f, 3.0f, 0.1f}).astype(t);
    x.attach_grad(GradReq::Add);
    for (int pass = 0; pass < 2; ++pass) {
      NDArray y;
      {
        autograd::RecordScope record;
        y = nd::sum(x * x);
      }
      y.backward();
    }
    const NDArray twice = (x.astype(DType::Float32) * 2.0).astype(t);
    const NDArray want = (twice.astype(DType::Float32) + twice.astype(DType::Float32)).astype(t);
    expect_same(x.grad(), want, cat("accumulated gradient ", dtype_name(t)));
  }
}

// An op writing over its input (out = x) keeps working through the float32 copy.
TEST(Float16Compute, InPlaceOutputsUpdateTheArrayItself) {
  NDArray x = nd::array({1.0f, 2.0f, -3.0f}).astype(DType::Float16);
  nd::invoke("_plus_scalar", {x}, {{"scalar", "0.5"}}, {x});
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1.5f, 2.5f, -2.5f}));
}

// Max pooling's gradient reaches each window's maximum: its hidden mask of positions is float32
// for 16-bit data too (a 16-bit float cannot carry them).
TEST(Float16Compute, MaxPoolingGradientsReachTheMaxima) {
  nd::seed(4);
  const NDArray image = nd::random_uniform(-1, 1, Shape({2, 3, 6, 6}));
  const op::AttrMap attrs{{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "max"}};
  auto gradient = [&attrs](NDArray x) {
    x.attach_grad();
    NDArray y;
    {
      autograd::RecordScope record;
      y = nd::invoke("Pooling", {x}, attrs)[0];
    }
    y.backward();
    return x.grad();
  };
  for (DType t : k16bit) {
    const NDArray low = image.astype(t);
    expect_same(gradient(low), gradient(low.astype(DType::Float32)).astype(t),
                cat("max pooling gradient ", dtype_name(t)));
  }
}

// BatchNorm in training updates its moving statistics, stored in 16 bits like the data.
TEST(Float16Compute, BatchNormMovingStatisticsAreWrittenBack) {
  nd::seed(9);
  const NDArray data = nd::random_uniform(-1, 1, Shape({4, 2, 3, 3}));
  auto run = [&](DType t) {
    std::vector<NDArray> in{data.astype(t), nd::ones(Shape({2})).astype(t), nd::zeros(Shape({2})).astype(t),
                            nd::zeros(Shape({2})).astype(t), nd::ones(Shape({2})).astype(t)};
    autograd::RecordScope training;
    NDArray out = nd::invoke("BatchNorm", in, {{"fix_gamma", "False"}, {"momentum", "0.5"}})[0];
    return std::vector<NDArray>{out, in[3], in[4]};
  };
  const auto low = run(DType::Float16);
  auto wide_in = data.astype(DType::Float16).astype(DType::Float32);
  std::vector<NDArray> in{wide_in, nd::ones(Shape({2})), nd::zeros(Shape({2})), nd::zeros(Shape({2})),
                          nd::ones(Shape({2}))};
  NDArray out;
  {
    autograd::RecordScope training;
    out = nd::invoke("BatchNorm", in, {{"fix_gamma", "False"}, {"momentum", "0.5"}})[0];
  }
  expect_same(low[0], out.astype(DType::Float16), "BatchNorm output");
  expect_same(low[1], in[3].astype(DType::Float16), "moving mean");
  expect_same(low[2], in[4].astype(DType::Float16), "moving variance");
  EXPECT_NE(low[1].to_vector<float>()[0], 0.0f);  // it was updated at all
}

}  // namespace
}  // namespace braid::test
