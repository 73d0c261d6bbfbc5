#pragma once
// Internals shared by the files of the reduction family (reduce.cc, reduce_norm.cc, reduce_arg.cc).
#include <optional>
#include <string>
#include <vector>

#include "op/op_util.h"
#include "op/register_all.h"
#include "reduce_kernels.h"

namespace braid::op::detail {

/// MXNet's ReduceAxesParam: axis (int, tuple or None = all), keepdims, exclude.
struct ReduceAxesParam {
  std::optional<std::vector<int64_t>> axis;
  bool keepdims = false;
  bool exclude = false;
};

/// norm's: ord 1 or 2.
struct NormParam : ReduceAxesParam {
  int ord = 2;
  std::optional<DType> out_dtype;
};

/// argmax's and argmin's: one axis or None (the flattened array).
struct ArgReduceParam {
  std::optional<int64_t> axis;
  bool keepdims = false;
};

/// Reads axis and keepdims, and exclude when the op has it (norm does not).
ReduceAxesParam read_reduce_axes(ParamReader& r, bool with_exclude);

/// Output shape from the input shape (the input cannot be inferred from the output).
bool infer_reduce_shape(const std::string& op, const ReduceAxesParam& p, std::vector<Shape>& in,
                        std::vector<Shape>& out);

inline ReducePlan reduce_plan_for(const std::string& op, const ReduceAxesParam& p, const Shape& in) {
  return ReducePlan(in, reduced_axes(op, in, p.axis, p.exclude));
}

/// The backward of a reduction whose input gradient is rule(x, y, dy, count) elementwise.
/// `P` is the op's parameter struct, a ReduceAxesParam or derived from one.
template <class P, class Rule>
auto elementwise_reduce_grad(const std::string& name, Rule rule) {
  return [name, rule](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const ReducePlan plan = reduce_plan_for(name, param<P>(pa), a.inputs[0].shape);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {  // integers: as forward accepts them
      const T* x = a.inputs[0].ptr<T>();
      const T* y = a.outputs[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      const T count = static_cast<T>(plan.count());
      reduce_backward(plan, a.in_grads[0].ptr<T>(), a.req[0],
                      [&](int64_t i, int64_t o) { return static_cast<T>(rule(x[i], y[o], g[o], count)); });
    });
  };
}

void add_norm_op(Registry& r);         // reduce_norm.cc
void add_arg_reduce_ops(Registry& r);  // reduce_arg.cc

}  // namespace braid::op::detail
