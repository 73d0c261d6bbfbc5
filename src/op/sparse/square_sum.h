#pragma once
// Internal: the _square_sum operator (square_sum.cc), registered with the storage operators.
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_square_sum(Registry& r);

}  // namespace braid::op::detail
