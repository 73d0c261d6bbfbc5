#pragma once
// Internal: add_n / ElementWiseSum (add_n.cc).
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_add_n_ops(Registry& r);

}  // namespace braid::op::detail
