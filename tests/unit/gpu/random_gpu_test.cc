// The CUDA sampling kernels (src/op/tensor/random.cu): the samples' range and moments, not the
// CPU's sequence, float32 and float64; a seed makes them reproducible, and calls differ.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"

using namespace braid;

namespace {

struct Moments {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
};

Moments moments(const NDArray& x) {
  const std::vector<double> v = x.copyto(cpu()).to_vector<double>();
  Moments m;
  for (double e : v) {
    m.mean += e;
    m.min = std::min(m.min, e);
    m.max = std::max(m.max, e);
  }
  m.mean /= static_cast<double>(v.size());
  for (double e : v) m.var += (e - m.mean) * (e - m.mean);
  m.var /= static_cast<double>(v.size());
  return m;
}

NDArray sample(const std::string& op, op::AttrMap attrs, DType dtype) {
  attrs["shape"] = "(1000, 1000)";
  attrs["dtype"] = dtype_name(dtype);
  attrs["ctx"] = "gpu(0)";
  return nd::invoke1(op, {}, attrs);
}

TEST(RandomGpu, CudaBuildsRegisterTheSamplingKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  for (const char* name : {"_random_uniform", "_random_normal", "_random_randint"})
    EXPECT_TRUE(test::has_gpu_kernels(name, false)) << name;
}

// A million samples: the mean within 5 standard errors.
TEST(RandomGpu, UniformAndNormalHaveTheirMoments) {
  REQUIRE_GPU();
  nd::seed(51);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const Moments u = moments(sample("_random_uniform", {{"low", "-1"}, {"high", "3"}}, dtype));
    EXPECT_GE(u.min, -1.0);
    EXPECT_LT(u.max, 3.0);
    EXPECT_NEAR(u.mean, 1.0, 5 * std::sqrt(16.0 / 12 / 1e6));
    EXPECT_NEAR(u.var, 16.0 / 12, 0.01);
    const Moments n = moments(sample("_random_normal", {{"loc", "2"}, {"scale", "0.5"}}, dtype));
    EXPECT_NEAR(n.mean, 2.0, 5 * 0.5 / 1e3);
    EXPECT_NEAR(n.var, 0.25, 0.003);
    EXPECT_GT(n.max, 2.0 + 4 * 0.5);  // tails are there
  }
  const Moments k = moments(sample("_random_randint", {{"low", "-3"}, {"high", "5"}}, DType::Int32));
  EXPECT_EQ(k.min, -3);
  EXPECT_EQ(k.max, 4);
  EXPECT_NEAR(k.mean, 0.5, 5 * std::sqrt(63.0 / 12 / 1e6));
}

TEST(RandomGpu, ASeedRepeatsTheSamplesAndCallsDiffer) {
  REQUIRE_GPU();
  nd::seed(52);
  const std::vector<float> first = sample("_random_uniform", {}, DType::Float32).copyto(cpu()).to_vector<float>();
  const std::vector<float> second = sample("_random_uniform", {}, DType::Float32).copyto(cpu()).to_vector<float>();
  nd::seed(52);
  const std::vector<float> again = sample("_random_uniform", {}, DType::Float32).copyto(cpu()).to_vector<float>();
  EXPECT_EQ(first, again);
  EXPECT_NE(first, second);
}

}  // namespace
