#pragma once
// Internal: FullyConnected's attributes and the matrix sizes they give, shared by its CPU
// (fully_connected.cc) and GPU (fully_connected.cu) kernels.
#include <algorithm>
#include <cstdint>

#include "braid/base/shape.h"

namespace braid::op::detail {

struct FCParam {
  int64_t num_hidden = 0;
  bool no_bias = false;
  bool flatten = true;
};

/// y (rows × hidden) = x (rows × in_units) · weightᵀ: flatten keeps axis 0 as the rows, otherwise
/// every axis but the last.
struct FCDims {
  int64_t rows, in_units, hidden;
  FCDims(const FCParam& p, const Shape& data)
      : rows(p.flatten ? data[0] : data.prod(0, data.ndim() - 1)),
        in_units(data.size() / std::max<int64_t>(rows, 1)),
        hidden(p.num_hidden) {}
};

}  // namespace braid::op::detail
