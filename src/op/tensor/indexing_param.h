#pragma once
// Internal: the parameters of take, pick and one_hot, shared by their CPU (indexing.cc) and GPU
// (indexing.cu) kernels.
#include <cstdint>

#include "braid/base/dtype.h"
#include "index_util.h"

namespace braid::op::detail {

struct TakeParam {
  int64_t axis = 0;
  IndexMode mode = IndexMode::Clip;
};

struct PickParam {
  int64_t axis = -1;
  bool keepdims = false;
  IndexMode mode = IndexMode::Clip;
};

struct OneHotParam {
  int64_t depth = 0;
  double on_value = 1, off_value = 0;
  DType dtype = DType::Float32;
};

}  // namespace braid::op::detail
