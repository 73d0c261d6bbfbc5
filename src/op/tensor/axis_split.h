#pragma once
// One-axis views shared by the reduction, indexing and ordering operators.
#include <optional>
#include <string>

#include "braid/base/error.h"
#include "braid/base/shape.h"
#include "braid/op/param_reader.h"

namespace braid::op::detail {

/// Normalizes a possibly negative axis of `s`; throws naming `op` and the valid range.
inline int checked_axis(const std::string& op, const Shape& s, int64_t axis) {
  const int64_t n = s.ndim();
  BRAID_CHECK(axis >= -n && axis < n, "operator ", op, ": axis ", axis, " is out of range for input shape ",
              s, " (valid: ", -n, " to ", n - 1, ")");
  return static_cast<int>(axis < 0 ? axis + n : axis);
}

/// The array seen as [outer, len, inner] around `axis`: element (o, j, i) is at (o*len + j)*inner + i.
struct AxisSplit {
  int64_t outer = 1, len = 1, inner = 1;
};

inline AxisSplit split_at_axis(const Shape& s, int axis) {
  return {s.prod(0, axis), s[axis], s.prod(axis + 1, s.ndim())};
}

/// An optional axis attribute whose absence means `fallback` and whose "None" means "the
/// flattened array" (MXNet's dmlc::optional<int> axis with a default, as in topk and pick).
inline std::optional<int64_t> read_axis_or_none(ParamReader& r, int64_t fallback) {
  const std::string v = r.get<std::string>("axis", "");
  if (v.empty()) return fallback;
  if (v == "None") return std::nullopt;
  return r.get<int64_t>("axis");
}

}  // namespace braid::op::detail
