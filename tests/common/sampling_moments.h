#pragma once
// The sampling operators' moments on a context, shared by the CPU (unit/op/tensor) and CUDA
// (unit/gpu) tests: a million samples of each distribution, the mean within 5 standard errors and
// the variance within 3% (1% for uniform and normal), the range of the support respected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"

namespace braid::test {

struct Moments {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
};

inline Moments moments(const NDArray& x) {
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

/// A million samples of `op` (shape 1000 × 1000) on ctx.
inline NDArray sample(const std::string& op, op::AttrMap attrs, DType dtype, Context ctx) {
  attrs["shape"] = "(1000, 1000)";
  attrs["dtype"] = dtype_name(dtype);
  attrs["ctx"] = ctx.str();
  return nd::invoke1(op, {}, attrs);
}

/// _random_uniform, _random_normal (float32 and float64) and _random_randint.
inline void expect_basic_sampler_moments(Context ctx) {
  nd::seed(51);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const Moments u = moments(sample("_random_uniform", {{"low", "-1"}, {"high", "3"}}, dtype, ctx));
    EXPECT_GE(u.min, -1.0);
    EXPECT_LT(u.max, 3.0);
    EXPECT_NEAR(u.mean, 1.0, 5 * std::sqrt(16.0 / 12 / 1e6));
    EXPECT_NEAR(u.var, 16.0 / 12, 0.01);
    const Moments n = moments(sample("_random_normal", {{"loc", "2"}, {"scale", "0.5"}}, dtype, ctx));
    EXPECT_NEAR(n.mean, 2.0, 5 * 0.5 / 1e3);
    EXPECT_NEAR(n.var, 0.25, 0.003);
    EXPECT_GT(n.max, 2.0 + 4 * 0.5);  // tails are there
  }
  const Moments k = moments(sample("_random_randint", {{"low", "-3"}, {"high", "5"}}, DType::Int32, ctx));
  EXPECT_EQ(k.min, -3);
  EXPECT_EQ(k.max, 4);
  EXPECT_NEAR(k.mean, 0.5, 5 * std::sqrt(63.0 / 12 / 1e6));
}

/// The samplers with scalar parameters (gamma, exponential, poisson, the negative binomials) and
/// a _like form.
inline void expect_scalar_sampler_moments(Context ctx) {
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
    const Moments m = moments(sample(c.op, c.attrs, c.dtype, ctx));
    EXPECT_GE(m.min, 0.0) << c.op;
    EXPECT_NEAR(m.mean, c.mean, 5 * std::sqrt(c.var / 1e6)) << c.op << " " << c.attrs.begin()->second;
    EXPECT_NEAR(m.var, c.var, 0.03 * c.var) << c.op << " " << c.attrs.begin()->second;
  }
  const NDArray like = nd::invoke1("_random_poisson_like", {nd::zeros(Shape({1000, 100}), ctx)}, {{"lam", "5"}});
  EXPECT_EQ(like.shape(), Shape({1000, 100}));
  EXPECT_NEAR(moments(like).mean, 5.0, 5 * std::sqrt(5.0 / 1e5));
}

}  // namespace braid::test
