#pragma once
// Internal: L2Normalization's parameter and how it groups the data, shared by its CPU
// (l2_normalization.cc) and GPU (l2_normalization.cu) kernels.
#include "braid/base/shape.h"
#include "op/common/axis_split.h"

namespace braid::op::detail {

enum class L2Mode { kInstance, kChannel, kSpatial };

struct L2NormParam {
  double eps = 1e-10;
  L2Mode mode = L2Mode::kInstance;
};

/// The data as (outer, n, inner): each norm sums n elements `inner` apart.
inline AxisSplit l2_split(L2Mode mode, const Shape& s) {
  const int64_t n = s[0], c = s.ndim() > 1 ? s[1] : 1, rest = n * c == 0 ? 0 : s.size() / (n * c);
  switch (mode) {
    case L2Mode::kInstance:
      return AxisSplit{n, c * rest, 1};
    case L2Mode::kChannel:
      return AxisSplit{n, c, rest};
    default:
      return AxisSplit{n * c, rest, 1};
  }
}

}  // namespace braid::op::detail
