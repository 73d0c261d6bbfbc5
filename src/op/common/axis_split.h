#pragma once
// Internal: a contiguous array seen around one axis, shared by the operators that work along an
// axis (softmax, normalization, reductions, indexing, ordering, image ops).
#include <cstdint>

#include "braid/base/shape.h"

namespace braid::op::detail {

/// A contiguous array seen as (outer, n, inner) around one axis: element (o, i, k) sits at
/// (o * n + i) * inner + k.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
  static AxisSplit around(const Shape& s, int axis) { return {s.prod(0, axis), s[axis], s.prod(axis + 1, s.ndim())}; }
};

}  // namespace braid::op::detail
