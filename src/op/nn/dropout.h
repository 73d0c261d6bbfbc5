#pragma once
// Internal: Dropout's attributes, shared by its CPU (dropout.cc) and GPU (dropout.cu) kernels.
#include <cstdint>
#include <vector>

namespace braid::op::detail {

struct DropoutParam {
  double p = 0.5;
  bool always = false;
  std::vector<int64_t> axes;
};

}  // namespace braid::op::detail
