// MXNet's sampling distributions as draws from (a, b), and writing draws into any dtype.
#include "random_dist.h"

#include <cmath>

#include "braid/base/error.h"

namespace braid::op::detail {
namespace {

double draw_uniform(std::mt19937_64& g, double low, double high) {
  return low + (high - low) * unit_uniform<double>(g);
}
double draw_normal(std::mt19937_64& g, double loc, double scale) {
  return std::normal_distribution<double>(loc, scale)(g);
}
// MXNet's gamma: shape alpha, scale beta (mean alpha*beta).
double draw_gamma(std::mt19937_64& g, double alpha, double beta) {
  return std::gamma_distribution<double>(alpha, beta)(g);
}
// rate lam (mean 1/lam)
double draw_exponential(std::mt19937_64& g, double lam, double) {
  return std::exponential_distribution<double>(lam)(g);
}
double draw_poisson(std::mt19937_64& g, double lam, double) {
  return lam == 0 ? 0.0 : static_cast<double>(std::poisson_distribution<int64_t>(lam)(g));
}
// failures before the k-th success with success probability p: a Poisson of a gamma-distributed
// rate, as MXNet samples it.
double draw_negative_binomial(std::mt19937_64& g, double k, double p) {
  if (p >= 1) return 0.0;
  const double rate = draw_gamma(g, k, (1 - p) / p);
  return draw_poisson(g, rate, 0);
}
// mean mu, dispersion alpha: Poisson(Gamma(1/alpha, alpha*mu)); alpha 0 is Poisson(mu).
double draw_generalized_negative_binomial(std::mt19937_64& g, double mu, double alpha) {
  if (alpha == 0) return draw_poisson(g, mu, 0);
  return draw_poisson(g, draw_gamma(g, 1 / alpha, alpha * mu), 0);
}

void check_uniform(const std::string& op, double low, double high) {
  BRAID_CHECK(low <= high, "operator ", op, ": low (", low, ") must not be above high (", high, ")");
}
void check_scale(const std::string& op, double, double scale) {
  BRAID_CHECK(scale >= 0, "operator ", op, ": scale must be non-negative, got ", scale);
}
void check_gamma(const std::string& op, double alpha, double beta) {
  BRAID_CHECK(alpha > 0 && beta > 0, "operator ", op, ": alpha and beta must be positive, got ", alpha, " and ", beta);
}
void check_rate(const std::string& op, double lam, double) {
  BRAID_CHECK(lam > 0, "operator ", op, ": lam must be positive, got ", lam);
}
void check_poisson(const std::string& op, double lam, double) {
  BRAID_CHECK(lam >= 0, "operator ", op, ": lam must be non-negative, got ", lam);
}
void check_negative_binomial(const std::string& op, double k, double p) {
  BRAID_CHECK(k > 0 && p > 0 && p <= 1, "operator ", op, ": needs k > 0 and 0 < p <= 1, got k=", k, ", p=", p);
}
void check_generalized(const std::string& op, double mu, double alpha) {
  BRAID_CHECK(mu > 0 && alpha >= 0, "operator ", op, ": needs mu > 0 and alpha >= 0, got mu=", mu, ", alpha=", alpha);
}

}  // namespace

const std::vector<Distribution>& distributions() {
  static const std::vector<Distribution> all{
      {"uniform", "low", "high", 0.0, 1.0, draw_uniform, check_uniform},
      {"normal", "loc", "scale", 0.0, 1.0, draw_normal, check_scale, "mu", "sigma"},
      {"gamma", "alpha", "beta", 1.0, 1.0, draw_gamma, check_gamma},
      {"exponential", "lam", nullptr, 1.0, 0.0, draw_exponential, check_rate},
      {"poisson", "lam", nullptr, 1.0, 0.0, draw_poisson, check_poisson},
      {"negative_binomial", "k", "p", 1.0, 1.0, draw_negative_binomial, check_negative_binomial},
      {"generalized_negative_binomial", "mu", "alpha", 1.0, 1.0, draw_generalized_negative_binomial, check_generalized},
  };
  return all;
}

void fill_draws(std::mt19937_64& g, DrawFn draw, double a, double b, const TBlob& out, int64_t offset, int64_t n) {
  auto* base = static_cast<char*>(out.dptr) + offset * static_cast<int64_t>(dtype_size(out.dtype));
  if (out.dtype == DType::Float64) {
    auto* o = reinterpret_cast<double*>(base);
    for (int64_t i = 0; i < n; ++i) o[i] = draw(g, a, b);
    return;
  }
  std::vector<double> buf(static_cast<size_t>(n));
  for (auto& v : buf) v = draw(g, a, b);
  convert_elements(buf.data(), DType::Float64, base, out.dtype, n);
}

}  // namespace braid::op::detail
