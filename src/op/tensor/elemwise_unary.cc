// Elementwise math on one array: exp, log, sqrt, ..., relu, sigmoid, clip, hard_sigmoid.
#include <cmath>
#include <limits>
#include <type_traits>

#include "clip_param.h"
#include "op/common/elementwise_loop.h"
#include "op/math/unary_functions.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

bool same_shape(const std::string& name, std::vector<Shape>& in, std::vector<Shape>& out) {
  return infer_same_shape(name, in, out);
}

// F::f(x); integer arrays are computed in double and cast back, as MXNet does (floor of an int32
// is the int32 itself, exp of one truncates). Results outside the integer type saturate and NaN
// becomes 0 (a plain cast of those is undefined).
template <class F, class T>
T apply(T x) {
  if constexpr (std::is_integral_v<T>) {
    const double y = F::f(static_cast<double>(x));
    if (std::isnan(y)) return T(0);
    if (y <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (y >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(y);
  } else {
    return F::f(x);
  }
}

// Registers y = F::f(x) with dy/dx = F::df(x, y) (op/math/unary_functions.h), for any dtype (gradients for float
// and double).
template <class F>
void add_unary(Registry& r, const std::string& name, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = no_params(name);
  d.list_arguments = args({"data"});
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return same_shape(name, in, out);
  };
  d.cpu.forward = [name](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      write_all(y, a.req[0], a.inputs[0].size(), [=](int64_t i) { return apply<F>(x[i]); });
    });
  };
  d.cpu.backward = [name](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      const T* x = a.inputs[0].ptr<T>();
      const T* y = a.outputs[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      T* dx = a.in_grads[0].ptr<T>();
      write_all(dx, a.req[0], a.inputs[0].size(), [=](int64_t i) { return static_cast<T>(g[i] * F::df(x[i], y[i])); });
    });
  };
  d.zero_gradient = F::zero_gradient;
  d.elementwise = true;
  r.add(std::move(d));
}

void add_clip(Registry& r) {
  OpDef d;
  d.name = "clip";
  d.doc = "Limits values to [a_min, a_max]; the gradient passes where the input is inside.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "clip");
    ClipParam p{rd.get<double>("a_min"), rd.get<double>("a_max")};
    rd.finish();
    BRAID_CHECK(p.a_min <= p.a_max, "operator clip: a_min (", p.a_min, ") exceeds a_max (", p.a_max, ")");
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return same_shape("clip", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<ClipParam>(pa);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "clip", {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      const T lo = static_cast<T>(p.a_min), hi = static_cast<T>(p.a_max);
      write_all(y, a.req[0], a.inputs[0].size(), [=](int64_t i) { return math::clip(x[i], lo, hi); });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<ClipParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "clip", {
      const T* x = a.inputs[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      T* dx = a.in_grads[0].ptr<T>();
      const T lo = static_cast<T>(p.a_min), hi = static_cast<T>(p.a_max);
      write_all(dx, a.req[0], a.inputs[0].size(),
                [=](int64_t i) { return math::clip_passes(x[i], lo, hi) ? g[i] : T(0); });
    });
  };
  r.add(std::move(d));
}

// hard_sigmoid: max(0, min(1, alpha * x + beta)); the gradient is alpha where 0 < y < 1.
struct HardSigmoidParam {
  double alpha = 0.2, beta = 0.5;
};

void add_hard_sigmoid(Registry& r) {
  OpDef d;
  d.name = "hard_sigmoid";
  d.doc = "max(0, min(1, alpha * x + beta)), element-wise.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "hard_sigmoid");
    HardSigmoidParam p;
    p.alpha = rd.get<double>("alpha", p.alpha);
    p.beta = rd.get<double>("beta", p.beta);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return same_shape("hard_sigmoid", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<HardSigmoidParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "hard_sigmoid", {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      const T alpha = static_cast<T>(p.alpha), beta = static_cast<T>(p.beta);
      for (int64_t i = 0, end = a.inputs[0].size(); i < end; ++i)
        assign(y[i], a.req[0], math::clip(alpha * x[i] + beta, T(0), T(1)));
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<HardSigmoidParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "hard_sigmoid", {
      const T* x = a.inputs[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      T* dx = a.in_grads[0].ptr<T>();
      const T alpha = static_cast<T>(p.alpha), beta = static_cast<T>(p.beta);
      for (int64_t i = 0, end = a.inputs[0].size(); i < end; ++i) {
        const T y = alpha * x[i] + beta;
        assign(dx[i], a.req[0], y > T(0) && y < T(1) ? g[i] * alpha : T(0));
      }
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_elemwise_unary_ops(Registry& r) {
  math::for_each_unary_op([&r](const char* name, const char* doc, auto fn) { add_unary<decltype(fn)>(r, name, doc); });
  add_clip(r);
  add_hard_sigmoid(r);
}

}  // namespace braid::op::detail
