// MXNet's sampling distributions, their parameters' checks, and writing draws into any dtype.
#include "random_dist.h"

#include <algorithm>
#include <vector>

#include "braid/base/convert.h"
#include "braid/base/error.h"
#include "ziggurat.h"

namespace braid::op::detail {
namespace {

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
      {"uniform", "low", "high", 0.0, 1.0, ScalarDist::Uniform, check_uniform},
      {"normal", "loc", "scale", 0.0, 1.0, ScalarDist::Normal, check_scale, "mu", "sigma"},
      {"gamma", "alpha", "beta", 1.0, 1.0, ScalarDist::Gamma, check_gamma},
      {"exponential", "lam", nullptr, 1.0, 0.0, ScalarDist::Exponential, check_rate},
      {"poisson", "lam", nullptr, 1.0, 0.0, ScalarDist::Poisson, check_poisson},
      {"negative_binomial", "k", "p", 1.0, 1.0, ScalarDist::NegativeBinomial, check_negative_binomial},
      {"generalized_negative_binomial", "mu", "alpha", 1.0, 1.0, ScalarDist::GeneralizedNegativeBinomial,
       check_generalized},
  };
  return all;
}

void fill_draws(uint64_t seed, ScalarDist dist, double a, double b, const TBlob& out, int64_t offset, int64_t n) {
  constexpr int64_t kBlock = 4096;  // drawn into a double buffer, then converted to out's dtype
  auto* base = static_cast<char*>(out.dptr) + offset * static_cast<int64_t>(dtype_size(out.dtype));
#pragma omp parallel for schedule(dynamic) if (n > 4 * kBlock)
  for (int64_t begin = 0; begin < n; begin += kBlock) {
    const int64_t count = std::min(kBlock, n - begin);
    double buf[kBlock];
    for (int64_t k = 0; k < count; ++k) {
      const int64_t i = offset + begin + k;
      Draws d(seed, i);
      buf[k] = dist == ScalarDist::Normal ? a + b * ziggurat_normal(seed, i) : draw(dist, d, a, b);
    }
    convert_elements(buf, DType::Float64, base + begin * static_cast<int64_t>(dtype_size(out.dtype)), out.dtype, count);
  }
}

}  // namespace braid::op::detail
