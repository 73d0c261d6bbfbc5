#include "op_util.h"

namespace braid::op::detail {

bool infer_same_shape(const std::string& op, std::vector<Shape>& in, std::vector<Shape>& out) {
  Shape s;
  for (size_t i = 0; i < in.size(); ++i) merge_shape(s, in[i], op, cat("input ", i));
  for (size_t i = 0; i < out.size(); ++i) merge_shape(s, out[i], op, cat("output ", i));
  for (size_t i = 0; i < in.size(); ++i) merge_shape(in[i], s, op, cat("input ", i));
  for (size_t i = 0; i < out.size(); ++i) merge_shape(out[i], s, op, cat("output ", i));
  return s.fully_known();
}

void infer_same_type(const std::string& op, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
  const DType unknown = kDTypeUnknown;
  DType t = unknown;
  for (auto* v : {&in, &out, &aux})
    for (DType d : *v)
      if (t == unknown && d != unknown) t = d;
  if (t == unknown) return;
  for (auto* v : {&in, &out, &aux})
    for (size_t i = 0; i < v->size(); ++i) {
      if ((*v)[i] == unknown) (*v)[i] = t;
      BRAID_CHECK((*v)[i] == t, "operator ", op, ": mixed dtypes ", dtype_name((*v)[i]), " and ", dtype_name(t),
                  "; convert with astype first");
    }
}

bool all_known(const std::vector<Shape>& shapes) {
  for (const auto& s : shapes)
    if (!s.fully_known()) return false;
  return true;
}

}  // namespace braid::op::detail
