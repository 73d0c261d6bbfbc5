#pragma once
// Internal: MXNet's scatter operators, which on compressed arrays compute on the stored values
// only (ndarray/sparse_dispatch.cc); on dense arrays they are their plain counterparts:
//   _scatter_elemwise_div (elemwise_div), _scatter_plus_scalar (_plus_scalar),
//   _scatter_minus_scalar (_minus_scalar).
#include "braid/op/registry.h"

namespace braid::op::detail {

/// Registers the scatter operators as copies of their counterparts (registered before, kernels
/// of every device included).
void register_scatter_ops(Registry& r);

}  // namespace braid::op::detail
