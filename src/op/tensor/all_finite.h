#pragma once
// Internal: all_finite and multi_all_finite (all_finite.cc; GPU kernels in all_finite.cu).
#include "braid/op/registry.h"

namespace braid::op::detail {

struct AllFiniteParam {
  int num_arrays = 1;
  bool init_output = true;  // else the output keeps its value where every element is finite
};

}  // namespace braid::op::detail
