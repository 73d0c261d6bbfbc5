#pragma once
/// MXNet's reshape spelling: 0 copies a dimension, -1 infers one, -2 copies all remaining,
/// -3 merges two, -4 splits one into the next two values (one of which may be -1).
#include <cstdint>
#include <vector>

#include "braid/base/shape.h"

namespace braid {

/// The target shape of reshaping `src` by `spec`; throws when sizes do not match.
Shape infer_reshape(const Shape& src, const std::vector<int64_t>& spec);

}  // namespace braid
