#pragma once
// Internal: drawing one value of each of MXNet's sampling distributions from two parameters, and
// writing draws into an output of any dtype. Shared by the samplers with scalar parameters
// (_random_gamma, ...) and those taking their parameters as arrays (_sample_gamma, ...).
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "braid/base/convert.h"
#include "braid/op/tensor.h"

namespace braid::op::detail {

/// A uniform draw in [0, 1) made of the top bits of one 64-bit output (24 for float, 53 for double):
/// several times faster than std::uniform_real_distribution, which goes through generate_canonical.
template <class T>
T unit_uniform(std::mt19937_64& g) {
  constexpr int kBits = std::numeric_limits<T>::digits;
  return static_cast<T>(g() >> (64 - kBits)) * (T(1) / static_cast<T>(uint64_t{1} << kBits));
}

/// One draw from a distribution with parameters (a, b).
using DrawFn = double (*)(std::mt19937_64&, double a, double b);

/// A distribution as MXNet names it: _random_<name> / _sample_<name>, its two parameters (the
/// second empty for one-parameter distributions) with their defaults.
struct Distribution {
  std::string name;
  const char* first;
  const char* second;
  double default_a, default_b;
  DrawFn draw;
  /// Throws naming `op` where (a, b) describe no distribution.
  void (*check)(const std::string& op, double a, double b);
  /// The _sample_ op's names for its parameter arrays where they differ (normal: mu, sigma).
  const char* array_first = nullptr;
  const char* array_second = nullptr;
};

/// The parameter of the samplers of a Distribution (_random_<name>, _random_<name>_like,
/// _sample_<name>): the output's shape and dtype (none: the input's, for _like) and the scalar
/// parameters (a, b).
struct DistParam {
  Shape shape;
  std::optional<DType> dtype;
  double a = 0, b = 0;
};

/// uniform, normal, gamma, exponential, poisson, negative_binomial, generalized_negative_binomial.
const std::vector<Distribution>& distributions();

/// Writes n draws of `draw(a, b)` into out starting at element `offset`, in out's dtype
/// (integers and float16 through a double buffer).
void fill_draws(std::mt19937_64& g, DrawFn draw, double a, double b, const TBlob& out, int64_t offset, int64_t n);

}  // namespace braid::op::detail
