// norm: the L1 or L2 norm of the elements over some axes (MXNet's `norm`, ord 1 or 2). Over two
// axes this is the elementwise (Frobenius for ord=2) norm, which is what MXNet computes. With
// out_dtype the result has that dtype (its gradient too); the kernels run in the input's dtype.
#include "braid/base/convert.h"
#include "braid/base/dtype.h"
#include "reduce_op.h"

namespace braid::op::detail {
namespace {

/// `b` in dtype `to`: `b` itself, or a copy converted into `storage`.
TBlob in_dtype(const TBlob& b, DType to, std::vector<char>& storage) {
  if (b.dtype == to || b.dptr == nullptr) return b;
  storage.resize(static_cast<size_t>(b.size()) * dtype_size(to));
  TBlob t = b;
  t.dptr = storage.data();
  t.dtype = to;
  convert_elements(b.dptr, b.dtype, t.dptr, to, b.size());
  return t;
}

void norm_forward(const NormParam& p, const TBlob& x, const TBlob& y, OpReq req) {
  const ReducePlan plan = reduce_plan_for("norm", p, x.shape);
  BRAID_REAL_TYPE_SWITCH(x.dtype, T, "norm", {
    if (p.ord == 1)
      reduce_forward<L1NormOp, T>(plan, x, y, req);
    else
      reduce_forward<L2NormOp, T>(plan, x, y, req);
  });
}

}  // namespace

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
    const auto& want = param<NormParam>(pa).out_dtype;
    if (!want) return infer_same_type("norm", in, out, aux);
    if (out[0] == kDTypeUnknown) out[0] = *want;
    BRAID_CHECK(out[0] == *want, "operator norm: the output must have out_dtype=", dtype_name(*want), "; got ",
                dtype_name(out[0]));
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_reduce_shape("norm", param<NormParam>(p), in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<NormParam>(pa);
    const TBlob &x = a.inputs[0], &y = a.outputs[0];
    if (y.dtype == x.dtype) return norm_forward(p, x, y, a.req[0]);
    if (a.req[0] == OpReq::Null) return;
    std::vector<char> storage;
    const TBlob result = in_dtype(y, x.dtype, storage);  // the current output, for Add
    norm_forward(p, x, result, a.req[0]);
    convert_elements(result.dptr, x.dtype, y.dptr, y.dtype, y.size());
  };
  const auto l1 = elementwise_reduce_grad<NormParam>("norm", math::L1NormGrad{});
  const auto l2 = elementwise_reduce_grad<NormParam>("norm", math::L2NormGrad{});
  d.cpu.backward = [l1, l2](const OpContext& ctx, const std::any& pa, const BackwardArgs& a) {
    BackwardArgs b = a;
    const DType t = a.inputs[0].dtype;
    std::vector<char> grad_storage, out_storage;
    if (!b.out_grads.empty()) b.out_grads[0] = in_dtype(a.out_grads[0], t, grad_storage);
    if (!b.outputs.empty()) b.outputs[0] = in_dtype(a.outputs[0], t, out_storage);
    if (param<NormParam>(pa).ord == 1)
      l1(ctx, pa, b);
    else
      l2(ctx, pa, b);
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
