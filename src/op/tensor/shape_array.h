#pragma once
// Internal: shape_array and size_array (shape_array.cc).
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_shape_array_ops(Registry& r);

}  // namespace braid::op::detail
