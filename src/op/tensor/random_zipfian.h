#pragma once
// Internal: _sample_unique_zipfian (random_zipfian.cc).
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_random_zipfian_ops(Registry& r);

}  // namespace braid::op::detail
