// Binary operations with a scalar attribute: _plus_scalar, _rminus_scalar, _power_scalar, ...
#include "op/math/binary_functions.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct ScalarParam {
  double scalar = 0;
};

// `reversed` computes f(scalar, x) instead of f(x, scalar) (_rminus_scalar, _rdiv_scalar, ...).
template <class Fn, bool reversed>
void add_scalar(Registry& r, const std::string& name) {
  OpDef d;
  d.name = name;
  d.doc = reversed ? "f(scalar, x) elementwise." : "f(x, scalar) elementwise.";
  d.parse = [name](const AttrMap& a) {
    ParamReader rd(a, name);
    ScalarParam p{rd.get<double>("scalar")};
    rd.get<bool>("is_int", false);  // MXNet 1.8+ marks integer scalars; the value says it all
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.elementwise = true;
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape(name, in, out);
  };
  d.cpu.forward = [name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      const T s = static_cast<T>(param<ScalarParam>(pa).scalar);
      const T* x = a.inputs[0].ptr<T>();
      T* z = a.outputs[0].ptr<T>();
      for (int64_t i = 0, end = a.inputs[0].size(); i < end; ++i)
        assign(z[i], a.req[0], reversed ? Fn::f(s, x[i]) : Fn::f(x[i], s));
    });
  };
  if constexpr (Fn::differentiable) {
    d.cpu.backward = [name](const OpContext&, const std::any& pa, const BackwardArgs& a) {
      if (a.req[0] == OpReq::Null) return;
      BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
        const T s = static_cast<T>(param<ScalarParam>(pa).scalar);
        const T* x = a.inputs[0].ptr<T>();
        const T* z = a.outputs[0].ptr<T>();
        const T* g = a.out_grads[0].ptr<T>();
        T* dx = a.in_grads[0].ptr<T>();
        for (int64_t i = 0, end = a.inputs[0].size(); i < end; ++i)
          assign(dx[i], a.req[0], static_cast<T>(g[i] * (reversed ? Fn::dr(s, x[i], z[i]) : Fn::dl(x[i], s, z[i]))));
      });
    };
  } else {
    d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
      if (a.req[0] == OpReq::Write)
        BRAID_REAL_TYPE_SWITCH(a.in_grads[0].dtype, T, "comparison", {
          std::fill(a.in_grads[0].ptr<T>(), a.in_grads[0].ptr<T>() + a.in_grads[0].size(), T(0));
        });
    };
    d.zero_gradient = true;
  }
  r.add(std::move(d));
}

}  // namespace

void register_elemwise_scalar_ops(Registry& r) {
  add_scalar<math::AddFn, false>(r, "_plus_scalar");
  add_scalar<math::SubFn, false>(r, "_minus_scalar");
  add_scalar<math::SubFn, true>(r, "_rminus_scalar");
  add_scalar<math::MulFn, false>(r, "_mul_scalar");
  add_scalar<math::DivFn, false>(r, "_div_scalar");
  add_scalar<math::DivFn, true>(r, "_rdiv_scalar");
  add_scalar<math::PowerFn, false>(r, "_power_scalar");
  add_scalar<math::PowerFn, true>(r, "_rpower_scalar");
  add_scalar<math::MaximumFn, false>(r, "_maximum_scalar");
  add_scalar<math::MinimumFn, false>(r, "_minimum_scalar");
  add_scalar<math::HypotFn, false>(r, "_hypot_scalar");
  add_scalar<math::EqualFn, false>(r, "_equal_scalar");
  add_scalar<math::NotEqualFn, false>(r, "_not_equal_scalar");
  add_scalar<math::GreaterFn, false>(r, "_greater_scalar");
  add_scalar<math::GreaterEqualFn, false>(r, "_greater_equal_scalar");
  add_scalar<math::LesserFn, false>(r, "_lesser_scalar");
  add_scalar<math::LesserEqualFn, false>(r, "_lesser_equal_scalar");
  r.add_alias("_PlusScalar", "_plus_scalar");
  r.add_alias("_MinusScalar", "_minus_scalar");
  r.add_alias("_RMinusScalar", "_rminus_scalar");
  r.add_alias("_MulScalar", "_mul_scalar");
  r.add_alias("_DivScalar", "_div_scalar");
  r.add_alias("_RDivScalar", "_rdiv_scalar");
  r.add_alias("_PowerScalar", "_power_scalar");
}

}  // namespace braid::op::detail
