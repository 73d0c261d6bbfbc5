#pragma once
/// Elementwise conversion between any two dtypes (float16/bfloat16 through float; bool as 0/1).
#include <cstdint>

#include "braid/base/dtype.h"

namespace braid {

void convert_elements(const void* src, DType from, void* dst, DType to, int64_t n);

}  // namespace braid
