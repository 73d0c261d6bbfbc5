#pragma once
// Internal: pad (pad.cc).
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_pad_ops(Registry& r);

}  // namespace braid::op::detail
