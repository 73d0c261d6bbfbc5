// norm: the L1 or L2 norm of the elements over some axes (MXNet's `norm`, ord 1 or 2). Over two
// axes this is the elementwise (Frobenius for ord=2) norm, which is what MXNet computes.
#include "braid/base/dtype.h"
#include "reduce_op.h"

namespace braid::op::detail {
void add_norm_op(Registry& r) {
  OpDef d;
  d.name = "norm";
  d.doc =
      "L1 (ord=1) or L2 (ord=2, default) norm over `axis` (int, tuple or None for all), "
      "keeping reduced axes as size 1 with `keepdims`.";
  d.parse = [](const AttrMap& a) {
    ParamReader r(a, "norm");
    NormParam p;
    static_cast<ReduceAxesParam&>(p) = read_reduce_axes(r, false);
    p.ord = r.get<int>("ord", 2);
    if (auto t = r.get_optional<std::string>("out_dtype")) p.out_dtype = dtype_from_name(*t);
    r.finish();
    BRAID_CHECK(p.ord == 1 || p.ord == 2, "operator norm: ord=", p.ord, " is not supported; use 1 or 2");
    return std::any(p);
  };
  d.infer_type = [](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
    infer_same_type("norm", in, out, aux);
    // A different output dtype would need a converting kernel; Cast the result instead.
    const auto& want = param<NormParam>(pa).out_dtype;
    BRAID_CHECK(!want || in[0] == kDTypeUnknown || *want == in[0], "operator norm: out_dtype=", dtype_name(*want),
                " differs from the input dtype ", dtype_name(in[0]),
                "; only the input dtype is supported, apply Cast to the result");
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_reduce_shape("norm", param<NormParam>(p), in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<NormParam>(pa);
    const ReducePlan plan = reduce_plan_for("norm", p, a.inputs[0].shape);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "norm", {
      if (p.ord == 1)
        reduce_forward<L1NormOp, T>(plan, a.inputs[0], a.outputs[0], a.req[0]);
      else
        reduce_forward<L2NormOp, T>(plan, a.inputs[0], a.outputs[0], a.req[0]);
    });
  };
  const auto l1 = elementwise_reduce_grad<NormParam>("norm", math::L1NormGrad{});
  const auto l2 = elementwise_reduce_grad<NormParam>("norm", math::L2NormGrad{});
  d.cpu.backward = [l1, l2](const OpContext& ctx, const std::any& pa, const BackwardArgs& a) {
    if (param<NormParam>(pa).ord == 1)
      l1(ctx, pa, a);
    else
      l2(ctx, pa, a);
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
