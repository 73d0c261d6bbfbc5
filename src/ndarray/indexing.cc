#include "braid/ndarray/indexing.h"

#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"

namespace braid::nd {

NDArray take(const NDArray& a, const NDArray& indices, int axis, const std::string& mode) {
  return invoke1("take", {a, indices}, {{"axis", op::format_number(axis)}, {"mode", mode}});
}

NDArray pick(const NDArray& data, const NDArray& index, int axis, bool keepdims, const std::string& mode) {
  return invoke1("pick", {data, index},
                 {{"axis", op::format_number(axis)}, {"keepdims", keepdims ? "True" : "False"}, {"mode", mode}});
}

NDArray one_hot(const NDArray& indices, int64_t depth, double on_value, double off_value, DType dtype) {
  return invoke1("one_hot", {indices},
                 {{"depth", op::format_number(static_cast<double>(depth))},
                  {"on_value", op::format_number(on_value)},
                  {"off_value", op::format_number(off_value)},
                  {"dtype", dtype_name(dtype)}});
}

}  // namespace braid::nd
