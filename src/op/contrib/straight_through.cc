// Operators whose gradient is not their derivative: contrib.round_ste and contrib.sign_ste
// (straight-through estimators: round / sign forward, the gradient passed through unchanged, as
// quantization-aware training uses) and contrib.gradientmultiplier (identity forward, the
// gradient times `scalar`: -1 makes the gradient-reversal layer of domain adaptation).
#include <cmath>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

/// y = f(x) element-wise; dx = scale(param) * dy.
template <class F, class Scale>
void add_passthrough_op(Registry& r, const char* name, const char* doc, std::function<std::any(const AttrMap&)> parse,
                        F f, Scale scale) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = std::move(parse);
  d.list_arguments = args({"data"});
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape(name, in, out);
  };
  d.cpu.forward = [name, f](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name, {
      const T* x = a.inputs[0].ptr<T>();
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.inputs[0].size(),
                 [&](int64_t i) { return static_cast<T>(f(x[i])); });
    });
  };
  d.cpu.backward = [name, scale](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.out_grads[0].dtype, T, name, {
      const T* g = a.out_grads[0].ptr<T>();
      const T s = static_cast<T>(scale(pa));
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.out_grads[0].size(), [&](int64_t i) { return g[i] * s; });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  d.elementwise = true;
  r.add(std::move(d));
}

}  // namespace

void register_straight_through_ops(Registry& r) {
  const auto one = [](const std::any&) { return 1.0; };
  add_passthrough_op(
      r, "_contrib_round_ste",
      "round(x) (halves away from zero) forward; the gradient passes through unchanged (straight-through estimator).",
      no_params("_contrib_round_ste"), [](auto x) { return std::round(x); }, one);
  add_passthrough_op(
      r, "_contrib_sign_ste", "sign(x) forward; the gradient passes through unchanged (straight-through estimator).",
      no_params("_contrib_sign_ste"), [](auto x) { return decltype(x)((x > 0) - (x < 0)); }, one);
  add_passthrough_op(
      r, "_contrib_gradientmultiplier", "Identity forward; backward multiplies the gradient by scalar.",
      [](const AttrMap& attrs) {
        ParamReader rd(attrs, "_contrib_gradientmultiplier");
        const double scalar = rd.get<double>("scalar");
        rd.get<bool>("is_int", false);  // MXNet's scalar-op parameter; the scalar is used as given
        rd.finish();
        return std::any(scalar);
      },
      [](auto x) { return x; }, [](const std::any& pa) { return param<double>(pa); });
}

}  // namespace braid::op::detail
