#include "op_util.h"

#include <iostream>
#include <mutex>
#include <set>

namespace braid::op::detail {

std::function<std::any(const AttrMap&)> no_params(const std::string& op) {
  return [op](const AttrMap& a) {
    static std::mutex mutex;
    static std::set<std::string> named;
    for (const auto& [key, value] : a) {
      if (key.rfind("__", 0) == 0) continue;  // MXNet's hidden attributes (__ctx_group__, ...)
      std::lock_guard<std::mutex> lock(mutex);
      if (named.insert(op + "." + key).second)
        std::cerr << "operator " << op << " takes no attributes; ignoring " << key << "=" << value
                  << " (as MXNet does)\n";
    }
    return std::any();
  };
}

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

void shape_only_second_input(const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
  if (in[0] == kDTypeUnknown) in[0] = out[0];
  if (out[0] == kDTypeUnknown) out[0] = in[0];
  if (in[1] == kDTypeUnknown) in[1] = in[0];
}

}  // namespace braid::op::detail
