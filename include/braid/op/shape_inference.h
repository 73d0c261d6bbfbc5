#pragma once
/// Shape inference helpers shared by operators and the graph's inference.
#include <string>

#include "braid/base/shape.h"

namespace braid::op {

/// Merges `src` into `dst`: unknown shapes and 0-dims of `dst` are filled from `src`; a conflict
/// throws braid::Error naming `op` and `what`. Returns false when `src` carries no information.
bool merge_shape(Shape& dst, const Shape& src, const std::string& op, const std::string& what);

}  // namespace braid::op
