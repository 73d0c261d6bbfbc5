// Binary operations with a scalar attribute: _plus_scalar, _rminus_scalar, _power_scalar, ...
#include "elemwise_scalar.h"
#include "op/common/elementwise_loop.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

// `reversed` computes f(scalar, x) instead of f(x, scalar) (_rminus_scalar, _rdiv_scalar, ...).
template <class Fn, bool reversed>
void add_scalar(Registry& r, const std::string& name) {
  OpDef d;
  d.name = name;
  d.doc = reversed ? "f(scalar, x) elementwise." : "f(x, scalar) elementwise.";
  d.parse = [name](const AttrMap& a) {
    ParamReader rd(a, name);
    ScalarParam p{rd.get<double>("scalar", 1.0)};  // MXNet defaults it to 1
    rd.get<bool>("is_int", false);                 // MXNet 1.8+ marks integer scalars; the value says it all
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
      write_all(z, a.req[0], a.inputs[0].size(), [=](int64_t i) { return reversed ? Fn::f(s, x[i]) : Fn::f(x[i], s); });
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
        write_all(dx, a.req[0], a.inputs[0].size(), [=](int64_t i) {
          return static_cast<T>(g[i] * (reversed ? Fn::dr(s, x[i], z[i]) : Fn::dl(x[i], s, z[i])));
        });
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
  for_each_scalar_op(
      [&r](const char* name, auto fn, auto reversed) { add_scalar<decltype(fn), decltype(reversed)::value>(r, name); });
  r.add_alias("_PlusScalar", "_plus_scalar");
  r.add_alias("_MinusScalar", "_minus_scalar");
  r.add_alias("_RMinusScalar", "_rminus_scalar");
  r.add_alias("_MulScalar", "_mul_scalar");
  r.add_alias("_DivScalar", "_div_scalar");
  r.add_alias("_RDivScalar", "_rdiv_scalar");
  r.add_alias("_PowerScalar", "_power_scalar");
  r.add_alias("_ModScalar", "_mod_scalar");
  r.add_alias("_RModScalar", "_rmod_scalar");
  for (const auto& [alias, name] : {std::pair{"_EqualScalar", "_equal_scalar"},
                                    {"_NotEqualScalar", "_not_equal_scalar"},
                                    {"_GreaterScalar", "_greater_scalar"},
                                    {"_GreaterEqualScalar", "_greater_equal_scalar"},
                                    {"_LesserScalar", "_lesser_scalar"},
                                    {"_LesserEqualScalar", "_lesser_equal_scalar"},
                                    {"_LogicalAndScalar", "_logical_and_scalar"},
                                    {"_LogicalOrScalar", "_logical_or_scalar"},
                                    {"_LogicalXorScalar", "_logical_xor_scalar"},
                                    {"_MaximumScalar", "_maximum_scalar"},
                                    {"_MinimumScalar", "_minimum_scalar"},
                                    {"_HypotScalar", "_hypot_scalar"},
                                    {"_RPowerScalar", "_rpower_scalar"}})
    r.add_alias(alias, name);
}

}  // namespace braid::op::detail
