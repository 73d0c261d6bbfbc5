// Reductions over axes: sum, mean, prod, nansum, nanprod, max, min (MXNet's
// broadcast_reduce_op_value), plus the registration of the whole reduction family.
#include "reduce_op.h"

namespace braid::op::detail {

ReduceAxesParam read_reduce_axes(ParamReader& r, bool with_exclude) {
  ReduceAxesParam p;
  p.axis = r.get_optional<std::vector<int64_t>>("axis");
  p.keepdims = r.get<bool>("keepdims", false);
  if (with_exclude) p.exclude = r.get<bool>("exclude", false);
  return p;
}

bool infer_reduce_shape(const std::string& op, const ReduceAxesParam& p, std::vector<Shape>& in,
                        std::vector<Shape>& out) {
  if (!in[0].known()) return false;
  Shape s = reduced_shape(in[0], reduced_axes(op, in[0], p.axis, p.exclude), p.keepdims);
  merge_shape(out[0], s, op, "output");
  return in[0].fully_known();
}

namespace {

// The definition of `name` without its backward. Integer dtypes are accepted when `integers`.
template <template <class> class Op>
OpDef reduce_def(const std::string& name, const std::string& doc, bool integers) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = [name](const AttrMap& a) {
    ParamReader r(a, name);
    ReduceAxesParam p = read_reduce_axes(r, true);
    r.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [name](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_reduce_shape(name, param<ReduceAxesParam>(p), in, out);
  };
  d.cpu.forward = [name, integers](const OpContext&, const std::any& p, const ForwardArgs& a) {
    const ReducePlan plan = reduce_plan_for(name, param<ReduceAxesParam>(p), a.inputs[0].shape);
    if (integers) {
      BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(),
                        { reduce_forward<Op, T>(plan, a.inputs[0], a.outputs[0], a.req[0]); });
    } else {
      BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(),
                             { reduce_forward<Op, T>(plan, a.inputs[0], a.outputs[0], a.req[0]); });
    }
  };
  return d;
}

// d(prod)/dx_i is the product of the other elements: exact even where some x are 0.
template <bool SkipNan>
void prod_backward(const std::string& name, const std::any& pa, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const ReducePlan plan = reduce_plan_for(name, param<ReduceAxesParam>(pa), a.inputs[0].shape);
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
    const T* x = a.inputs[0].ptr<T>();
    const T* g = a.out_grads[0].ptr<T>();
    const auto parts = reduce_accumulate<ProdPartsOp<T, SkipNan>>(plan, x);
    reduce_backward(plan, a.in_grads[0].ptr<T>(), a.req[0], [&](int64_t i, int64_t o) {
      const auto& p = parts[static_cast<size_t>(o)];
      const T xi = x[i];
      if (SkipNan && is_nan(xi)) return T(0);
      if (p.zeros == 0) return static_cast<T>(g[o] * (p.nonzero / xi));
      if (p.zeros == 1 && xi == T(0)) return static_cast<T>(g[o] * p.nonzero);
      return T(0);
    });
  });
}

template <bool SkipNan>
auto prod_grad(const std::string& name) {
  return [name](const OpContext&, const std::any& pa, const BackwardArgs& a) { prod_backward<SkipNan>(name, pa, a); };
}

constexpr const char* kAxesDoc =
    " over `axis` (int, tuple, or None for all; `exclude` reduces the other axes instead;"
    " `keepdims` keeps reduced axes as size 1).";

// A maximum or minimum has no identity: an empty input is an error, as in MXNet and NumPy.
void refuse_empty_input(OpDef& d) {
  d.infer_shape = [name = d.name, infer = d.infer_shape](const std::any& p, std::vector<Shape>& in,
                                                         std::vector<Shape>& out, std::vector<Shape>& aux) {
    BRAID_CHECK(!in[0].fully_known() || in[0].size() > 0, "operator ", name, ": the input of shape ", in[0],
                " is empty, and a ", name, " of no elements is undefined");
    return infer(p, in, out, aux);
  };
}

}  // namespace

void register_reduce_ops(Registry& r) {
  OpDef sum = reduce_def<SumOp>("sum", std::string("Sum") + kAxesDoc, true);
  sum.cpu.backward = elementwise_reduce_grad<ReduceAxesParam>("sum", math::PassGrad{});
  r.add(std::move(sum));
  r.add_alias("sum_axis", "sum");

  OpDef mean = reduce_def<MeanOp>("mean", std::string("Mean") + kAxesDoc, true);
  mean.cpu.backward = elementwise_reduce_grad<ReduceAxesParam>("mean", math::MeanGrad{});
  r.add(std::move(mean));

  OpDef nansum = reduce_def<NanSumOp>("nansum", std::string("Sum, NaN counted as 0,") + kAxesDoc, false);
  nansum.cpu.backward = elementwise_reduce_grad<ReduceAxesParam>("nansum", math::NanSumGrad{});
  r.add(std::move(nansum));

  OpDef prod = reduce_def<ProdOp>("prod", std::string("Product") + kAxesDoc, true);
  prod.cpu.backward = prod_grad<false>("prod");
  r.add(std::move(prod));

  OpDef nanprod = reduce_def<NanProdOp>("nanprod", std::string("Product, NaN counted as 1,") + kAxesDoc, false);
  nanprod.cpu.backward = prod_grad<true>("nanprod");
  r.add(std::move(nanprod));

  OpDef max = reduce_def<MaxOp>("max", std::string("Maximum") + kAxesDoc, true);
  max.cpu.backward = elementwise_reduce_grad<ReduceAxesParam>("max", math::ArgExtremumGrad{});
  refuse_empty_input(max);
  r.add(std::move(max));
  r.add_alias("max_axis", "max");

  OpDef min = reduce_def<MinOp>("min", std::string("Minimum") + kAxesDoc, true);
  min.cpu.backward = elementwise_reduce_grad<ReduceAxesParam>("min", math::ArgExtremumGrad{});
  refuse_empty_input(min);
  r.add(std::move(min));
  r.add_alias("min_axis", "min");

  add_norm_op(r);
  add_arg_reduce_ops(r);
}

}  // namespace braid::op::detail
