// The densities _random_pdf_<dist> against their closed forms, symbolic shape inference of
// samplers without a shape, _sample_unique_zipfian and _sample_multinomial's dtype bound.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/symbol.h"
#include "unit/op/tensor/matrix_test_util.h"

namespace braid::test {
namespace {

using V = std::vector<double>;

void expect_near(const NDArray& a, const V& want, double rtol = 1e-5) {
  const V got = a.to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], rtol * std::abs(want[i]) + 1e-7) << i;
}

TEST(RandomPdf, ContinuousDensitiesMatchTheirFormulas) {
  // Two rows of parameters, two samples each.
  NDArray x = make_array(Shape({2, 2}), V{0.5, 1.5, 2.0, 3.0}, DType::Float64);
  NDArray mu = make_array(Shape({2}), V{0.0, 2.0}, DType::Float64),
          sigma = make_array(Shape({2}), V{1.0, 0.5}, DType::Float64);
  auto normal = [](double v, double m, double s) {
    return std::exp(-(v - m) * (v - m) / (2 * s * s)) / (s * std::sqrt(2 * M_PI));
  };
  expect_near(nd::invoke1("random_pdf_normal", {x, mu, sigma}),
              {normal(0.5, 0, 1), normal(1.5, 0, 1), normal(2.0, 2, 0.5), normal(3.0, 2, 0.5)});
  expect_near(nd::invoke1("_random_pdf_normal", {x, mu, sigma}, {{"is_log", "True"}}),
              {std::log(normal(0.5, 0, 1)), std::log(normal(1.5, 0, 1)), std::log(normal(2.0, 2, 0.5)),
               std::log(normal(3.0, 2, 0.5))});
  NDArray alpha = make_array(Shape({2}), V{2.0, 3.0}, DType::Float64),
          beta = make_array(Shape({2}), V{1.0, 2.0}, DType::Float64);
  auto gamma = [](double v, double a, double b) {
    return std::pow(b, a) * std::pow(v, a - 1) * std::exp(-b * v) / std::tgamma(a);
  };
  expect_near(nd::invoke1("_random_pdf_gamma", {x, alpha, beta}),
              {gamma(0.5, 2, 1), gamma(1.5, 2, 1), gamma(2.0, 3, 2), gamma(3.0, 3, 2)});
  NDArray low = make_array(Shape({2}), V{0.0, 2.5}, DType::Float64),
          high = make_array(Shape({2}), V{1.0, 4.5}, DType::Float64);
  expect_near(nd::invoke1("_random_pdf_uniform", {x, low, high}), {1.0, 0.0, 0.0, 0.5});  // 1.5 and 2.0 outside
}

TEST(RandomPdf, DiscreteProbabilitiesMatchTheirFormulas) {
  NDArray x = make_array(Shape({1, 3}), V{0, 2, 5}, DType::Float64);
  NDArray lam = make_array(Shape({1}), V{1.5}, DType::Float64);
  auto poisson = [](double k, double l) { return std::exp(-l) * std::pow(l, k) / std::tgamma(k + 1); };
  expect_near(nd::invoke1("_random_pdf_poisson", {x, lam}), {poisson(0, 1.5), poisson(2, 1.5), poisson(5, 1.5)});
  // Failures before the k-th success: C(x + k - 1, x) p^k (1 - p)^x.
  NDArray k = make_array(Shape({1}), V{3}, DType::Float64), p = make_array(Shape({1}), V{0.4}, DType::Float64);
  auto nbinom = [](double n, double kk, double pp) {
    return std::tgamma(n + kk) / (std::tgamma(n + 1) * std::tgamma(kk)) * std::pow(pp, kk) * std::pow(1 - pp, n);
  };
  expect_near(nd::invoke1("_random_pdf_negative_binomial", {x, k, p}),
              {nbinom(0, 3, 0.4), nbinom(2, 3, 0.4), nbinom(5, 3, 0.4)});
  // mu = 2, alpha = 0.5: k = 2, p = 1 / (1 + 1) = 0.5.
  NDArray m = make_array(Shape({1}), V{2}, DType::Float64), a = make_array(Shape({1}), V{0.5}, DType::Float64);
  expect_near(nd::invoke1("_random_pdf_generalized_negative_binomial", {x, m, a}),
              {nbinom(0, 2, 0.5), nbinom(2, 2, 0.5), nbinom(5, 2, 0.5)});
}

TEST(RandomPdf, DirichletReadsTheLastAxis) {
  // alpha = (1, 1, 1) is uniform on the simplex: density Γ(3) = 2 everywhere.
  NDArray x = make_array(Shape({1, 2, 3}), V{0.2, 0.3, 0.5, 0.1, 0.1, 0.8}, DType::Float64);
  expect_near(nd::invoke1("_random_pdf_dirichlet", {x, make_array(Shape({1, 3}), V{1, 1, 1}, DType::Float64)}), {2, 2});
  // alpha = (2, 1, 1): Γ(4)/Γ(2) x_0 = 6 x_0.
  expect_near(nd::invoke1("_random_pdf_dirichlet", {x, make_array(Shape({1, 3}), V{2, 1, 1}, DType::Float64)}),
              {6 * 0.2, 6 * 0.1});
  EXPECT_THROW(nd::invoke1("_random_pdf_dirichlet", {x, make_array(Shape({1, 2}), V{1, 1}, DType::Float64)}), Error);
}

TEST(RandomPdf, SamplerWithoutShapeTakesItFromTheGraph) {
  Symbol noise = sym::make("_random_normal", std::vector<Symbol>{}, op::AttrMap{});
  Symbol sum = sym::make("elemwise_add", {noise, Symbol::Variable("x")}, {});
  std::map<std::string, Shape> known{{"x", Shape({4, 5})}};
  EXPECT_EQ(sum.infer_shape(known).out[0], Shape({4, 5}));
  EXPECT_THROW(nd::invoke1("_random_normal", {}, {}), Error);  // imperatively a shape is needed
}

TEST(RandomPdf, UniqueZipfianSamplesAreDistinct) {
  auto out = nd::invoke("_sample_unique_zipfian", {}, {{"range_max", "50"}, {"shape", "(3, 20)"}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype(), DType::Int64);
  const V s = out[0].to_vector<double>(), tries = out[1].to_vector<double>();
  for (int row = 0; row < 3; ++row) {
    std::set<double> distinct(s.begin() + row * 20, s.begin() + (row + 1) * 20);
    EXPECT_EQ(distinct.size(), 20u);
    EXPECT_GE(*distinct.begin(), 0);
    EXPECT_LT(*distinct.rbegin(), 50);
    EXPECT_GE(tries[static_cast<size_t>(row)], 20);
  }
  EXPECT_THROW(nd::invoke("_sample_unique_zipfian", {}, {{"range_max", "5"}, {"shape", "(1, 6)"}}), Error);
}

TEST(RandomPdf, MultinomialRefusesADtypeTooNarrowForTheCategories) {
  EXPECT_THROW(nd::invoke1("_sample_multinomial", {NDArray(Shape({300}))}, {{"dtype", "uint8"}}), Error);
  EXPECT_NO_THROW(
      nd::invoke1("_sample_multinomial", {make_array(Shape({4}), V{0.25, 0.25, 0.25, 0.25})}, {{"dtype", "uint8"}})
          .wait_to_read());
}

}  // namespace
}  // namespace braid::test
