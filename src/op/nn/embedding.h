#pragma once
// Internal: Embedding's attributes, shared by its CPU (embedding.cc) and GPU (embedding.cu)
// kernels.
#include <cstdint>

#include "braid/base/dtype.h"

namespace braid::op::detail {

struct EmbeddingParam {
  int64_t input_dim = 0, output_dim = 0;
  DType dtype = DType::Float32;
};

}  // namespace braid::op::detail
