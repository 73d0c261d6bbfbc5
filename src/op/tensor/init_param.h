#pragma once
// Internal: the parameter of the fill operators (_zeros, _ones, _full), shared by their CPU
// (init.cc) and GPU (init.cu) kernels.
#include "braid/base/dtype.h"
#include "braid/base/shape.h"

namespace braid::op::detail {

struct InitParam {
  Shape shape;
  DType dtype = DType::Float32;
  double value = 0;  // _full's
};

}  // namespace braid::op::detail
