// The CUDA sampling kernels (src/op/tensor/random.cu): the samples' range and moments, not the
// CPU's sequence, float32, float64 and integers; a seed makes them reproducible, and calls differ.
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
  for (const char* name : {"_random_uniform", "_random_normal", "_random_randint", "_random_gamma",
                           "_random_exponential", "_random_poisson", "_random_poisson_like",
                           "_random_negative_binomial", "_random_generalized_negative_binomial"})
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

// The samplers with scalar parameters: a million samples each, the mean within 5 standard errors
// and the variance within 3%.
TEST(RandomGpu, ScalarParameterSamplersHaveTheirMoments) {
  REQUIRE_GPU();
  nd::seed(53);
  struct Expected {
    const char* op;
    op::AttrMap attrs;
    DType dtype;
    double mean, var;
  };
  const Expected cases[] = {
      {"_random_gamma", {{"alpha", "2.5"}, {"beta", "1.5"}}, DType::Float32, 3.75, 5.625},
      {"_random_gamma", {{"alpha", "0.5"}, {"beta", "2"}}, DType::Float64, 1.0, 2.0},
      {"_random_exponential", {{"lam", "2"}}, DType::Float32, 0.5, 0.25},
      {"_random_poisson", {{"lam", "3"}}, DType::Int32, 3.0, 3.0},
      {"_random_poisson", {{"lam", "40"}}, DType::Float32, 40.0, 40.0},
      {"_random_negative_binomial", {{"k", "3"}, {"p", "0.4"}}, DType::Float32, 4.5, 11.25},
      {"_random_generalized_negative_binomial", {{"mu", "2"}, {"alpha", "0.5"}}, DType::Float32, 2.0, 4.0},
  };
  for (const Expected& c : cases) {
    const Moments m = moments(sample(c.op, c.attrs, c.dtype));
    EXPECT_GE(m.min, 0.0) << c.op;
    EXPECT_NEAR(m.mean, c.mean, 5 * std::sqrt(c.var / 1e6)) << c.op << " " << c.attrs.begin()->second;
    EXPECT_NEAR(m.var, c.var, 0.03 * c.var) << c.op << " " << c.attrs.begin()->second;
  }
  const NDArray like = nd::invoke1("_random_poisson_like", {nd::zeros(Shape({1000, 100}), gpu(0))}, {{"lam", "5"}});
  EXPECT_EQ(like.shape(), Shape({1000, 100}));
  EXPECT_NEAR(moments(like).mean, 5.0, 5 * std::sqrt(5.0 / 1e5));
}

}  // namespace
