#pragma once
// Internal helpers for writing operators: shape merging, common inference functions.
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/op/op_def.h"
#include "braid/op/param_reader.h"
#include "braid/op/shape_inference.h"

namespace braid::op::detail {

/// Every input and output has the same shape (elementwise ops).
bool infer_same_shape(const std::string& op, std::vector<Shape>& in, std::vector<Shape>& out);

/// Every input, output and aux shares the first known dtype (the default).
void infer_same_type(const std::string& op, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux);

bool all_known(const std::vector<Shape>& shapes);

/// Type inference of ops whose second input gives only a shape (broadcast_like, slice_like): the
/// output takes the first input's dtype, the second keeps its own (the first's when unknown).
void shape_only_second_input(const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&);

/// list_arguments returning fixed names.
inline std::function<std::vector<std::string>(const std::any&)> args(std::vector<std::string> names) {
  return [names](const std::any&) { return names; };
}

/// A parser for ops without attributes. As MXNet, attributes given to such an op are ignored;
/// each one is named once on stderr, since it is most likely a mistake.
std::function<std::any(const AttrMap&)> no_params(const std::string& op);

/// Typed access to the parsed parameter.
template <class P>
const P& param(const std::any& a) {
  return *std::any_cast<P>(&a);
}

}  // namespace braid::op::detail
