#pragma once
// Internal: the binary ops with a scalar attribute (_plus_scalar, _rminus_scalar, ...) and their
// parameter, shared by their CPU (elemwise_scalar.cc) and GPU (elemwise_scalar.cu) kernels.
#include <type_traits>

#include "op/math/binary_functions.h"

namespace braid::op::detail {

struct ScalarParam {
  double scalar = 0;
};

/// Calls visit(name, Fn{}, reversed) for every scalar op: f(x, scalar) by the binary functor Fn,
/// or f(scalar, x) where `reversed` (a std::bool_constant).
template <class Visit>
void for_each_scalar_op(Visit&& visit) {
  using Forward = std::false_type;
  using Reversed = std::true_type;
  visit("_plus_scalar", math::AddFn{}, Forward{});
  visit("_minus_scalar", math::SubFn{}, Forward{});
  visit("_rminus_scalar", math::SubFn{}, Reversed{});
  visit("_mul_scalar", math::MulFn{}, Forward{});
  visit("_div_scalar", math::DivFn{}, Forward{});
  visit("_rdiv_scalar", math::DivFn{}, Reversed{});
  visit("_power_scalar", math::PowerFn{}, Forward{});
  visit("_rpower_scalar", math::PowerFn{}, Reversed{});
  visit("_maximum_scalar", math::MaximumFn{}, Forward{});
  visit("_minimum_scalar", math::MinimumFn{}, Forward{});
  visit("_hypot_scalar", math::HypotFn{}, Forward{});
  visit("_equal_scalar", math::EqualFn{}, Forward{});
  visit("_not_equal_scalar", math::NotEqualFn{}, Forward{});
  visit("_greater_scalar", math::GreaterFn{}, Forward{});
  visit("_greater_equal_scalar", math::GreaterEqualFn{}, Forward{});
  visit("_lesser_scalar", math::LesserFn{}, Forward{});
  visit("_lesser_equal_scalar", math::LesserEqualFn{}, Forward{});
  visit("_mod_scalar", math::ModFn{}, Forward{});
  visit("_rmod_scalar", math::ModFn{}, Reversed{});
  visit("_logical_and_scalar", math::LogicalAndFn{}, Forward{});
  visit("_logical_or_scalar", math::LogicalOrFn{}, Forward{});
  visit("_logical_xor_scalar", math::LogicalXorFn{}, Forward{});
  visit("smooth_l1", math::SmoothL1Fn{}, Forward{});
}

}  // namespace braid::op::detail
