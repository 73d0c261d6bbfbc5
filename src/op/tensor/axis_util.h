#pragma once
// Axis arguments of the reduction, indexing and ordering operators, and their view of the array
// around one axis (common/axis_split.h).
#include <optional>
#include <string>

#include "braid/base/error.h"
#include "braid/base/shape.h"
#include "braid/op/param_reader.h"
#include "op/common/axis_split.h"

namespace braid::op::detail {

/// Normalizes a possibly negative axis of `s`; throws naming `op` and the valid range.
inline int checked_axis(const std::string& op, const Shape& s, int64_t axis) {
  const int64_t n = s.ndim();
  BRAID_CHECK(axis >= -n && axis < n, "operator ", op, ": axis ", axis, " is out of range for input shape ", s,
              " (valid: ", -n, " to ", n - 1, ")");
  return static_cast<int>(axis < 0 ? axis + n : axis);
}

inline AxisSplit split_at_axis(const Shape& s, int axis) { return AxisSplit::around(s, axis); }

/// An optional axis attribute whose absence means `fallback` and whose "None" means "the
/// flattened array" (MXNet's dmlc::optional<int> axis with a default, as in topk and pick).
inline std::optional<int64_t> read_axis_or_none(ParamReader& r, int64_t fallback) {
  const std::string v = r.get<std::string>("axis", "");
  if (v.empty()) return fallback;
  if (v == "None") return std::nullopt;
  return r.get<int64_t>("axis");
}

}  // namespace braid::op::detail
