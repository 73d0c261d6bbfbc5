#pragma once
// Internal: make_loss and MakeLoss (make_loss.cc).
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_make_loss_ops(Registry& r);

}  // namespace braid::op::detail
