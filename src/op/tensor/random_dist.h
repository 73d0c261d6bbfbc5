#pragma once
// Internal: MXNet's sampling distributions by name, and writing their draws (random_draws.h)
// into an output of any dtype. Shared by the samplers with scalar parameters (_random_gamma, ...)
// and those taking their parameters as arrays (_sample_gamma, ...).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/base/convert.h"
#include "braid/op/tensor.h"
#include "random_draws.h"

namespace braid::op::detail {

/// A distribution as MXNet names it: _random_<name> / _sample_<name>, its two parameters (the
/// second empty for one-parameter distributions) with their defaults.
struct Distribution {
  std::string name;
  const char* first;
  const char* second;
  double default_a, default_b;
  ScalarDist kind;
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

/// Writes draws of `dist(a, b)` into out's elements [offset, offset + n), in out's dtype: element i
/// is draw(dist, Draws(seed, i), a, b) (a normal: a + b·ziggurat_normal(seed, i)), so the result
/// does not depend on the number of threads.
void fill_draws(uint64_t seed, ScalarDist dist, double a, double b, const TBlob& out, int64_t offset, int64_t n);

}  // namespace braid::op::detail
