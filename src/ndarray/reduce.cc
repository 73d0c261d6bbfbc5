#include "braid/ndarray/reduce.h"

#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"

namespace braid::nd {
namespace {

std::string bool_attr(bool b) { return b ? "True" : "False"; }

// Attributes of the axis reductions; an empty axis list is left out (= all axes).
op::AttrMap axes_attrs(const std::vector<int>& axis, bool keepdims) {
  op::AttrMap a{{"keepdims", bool_attr(keepdims)}};
  if (!axis.empty()) a["axis"] = Shape(std::vector<int64_t>(axis.begin(), axis.end())).str();
  return a;
}

NDArray reduce(const char* op, const NDArray& x, const std::vector<int>& axis, bool keepdims, bool exclude) {
  auto a = axes_attrs(axis, keepdims);
  a["exclude"] = bool_attr(exclude);
  return invoke1(op, {x}, a);
}

NDArray arg_reduce(const char* op, const NDArray& x, std::optional<int> axis, bool keepdims) {
  return invoke1(op, {x}, {{"axis", axis ? op::format_number(*axis) : "None"}, {"keepdims", bool_attr(keepdims)}});
}

}  // namespace

NDArray sum(const NDArray& x, std::vector<int> axis, bool keepdims, bool exclude) {
  return reduce("sum", x, axis, keepdims, exclude);
}
NDArray mean(const NDArray& x, std::vector<int> axis, bool keepdims, bool exclude) {
  return reduce("mean", x, axis, keepdims, exclude);
}
NDArray prod(const NDArray& x, std::vector<int> axis, bool keepdims, bool exclude) {
  return reduce("prod", x, axis, keepdims, exclude);
}
NDArray nansum(const NDArray& x, std::vector<int> axis, bool keepdims, bool exclude) {
  return reduce("nansum", x, axis, keepdims, exclude);
}
NDArray nanprod(const NDArray& x, std::vector<int> axis, bool keepdims, bool exclude) {
  return reduce("nanprod", x, axis, keepdims, exclude);
}
NDArray max(const NDArray& x, std::vector<int> axis, bool keepdims, bool exclude) {
  return reduce("max", x, axis, keepdims, exclude);
}
NDArray min(const NDArray& x, std::vector<int> axis, bool keepdims, bool exclude) {
  return reduce("min", x, axis, keepdims, exclude);
}

NDArray norm(const NDArray& x, int ord, std::vector<int> axis, bool keepdims) {
  auto a = axes_attrs(axis, keepdims);
  a["ord"] = op::format_number(ord);
  return invoke1("norm", {x}, a);
}

NDArray argmax(const NDArray& x, std::optional<int> axis, bool keepdims) {
  return arg_reduce("argmax", x, axis, keepdims);
}
NDArray argmin(const NDArray& x, std::optional<int> axis, bool keepdims) {
  return arg_reduce("argmin", x, axis, keepdims);
}

}  // namespace braid::nd
