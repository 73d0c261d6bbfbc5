// Elementwise math on one array: exp, log, sqrt, ..., relu, sigmoid, clip.
#include <cmath>

#include "../op_util.h"
#include "../register_all.h"

namespace braid::op::detail {
namespace {

bool same_shape(const std::string& name, std::vector<Shape>& in, std::vector<Shape>& out) {
  return infer_same_shape(name, in, out);
}

// Registers y = f(x) with dy/dx = df(x, y). `F` and `DF` are generic lambdas instantiated for
// float and double. A null DF marks a zero gradient (floor, sign, ...).
template <class F, class DF>
void add_unary(Registry& r, const std::string& name, const std::string& doc, F f, DF df,
               bool zero_gradient = false) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = no_params(name);
  d.list_arguments = args({"data"});
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return same_shape(name, in, out);
  };
  d.forward = [f, name](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      const int64_t n = a.inputs[0].size();
      if (a.req[0] == OpReq::Write) {
        for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
      } else if (a.req[0] == OpReq::Add) {
        for (int64_t i = 0; i < n; ++i) y[i] += f(x[i]);
      }
    });
  };
  d.backward = [df, name](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      const T* x = a.inputs[0].ptr<T>();
      const T* y = a.outputs[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      T* dx = a.in_grads[0].ptr<T>();
      const int64_t n = a.inputs[0].size();
      for (int64_t i = 0; i < n; ++i) assign(dx[i], a.req[0], static_cast<T>(g[i] * df(x[i], y[i])));
    });
  };
  d.zero_gradient = zero_gradient;
  d.elementwise = true;
  r.add(std::move(d));
}

const auto kZero = [](auto x, auto) { return decltype(x)(0); };

template <class T>
T sigmoid(T x) {
  return x >= 0 ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x));
}
template <class T>
T softrelu(T x) {  // log(1 + exp(x)), stable for large |x|
  return x > T(20) ? x : std::log1p(std::exp(x));
}

struct ClipParam {
  double a_min = 0, a_max = 0;
};

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
  d.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<ClipParam>(pa);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "clip", {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      const T lo = static_cast<T>(p.a_min), hi = static_cast<T>(p.a_max);
      for (int64_t i = 0, end = a.inputs[0].size(); i < end; ++i)
        assign(y[i], a.req[0], x[i] < lo ? lo : (x[i] > hi ? hi : x[i]));
    });
  };
  d.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<ClipParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "clip", {
      const T* x = a.inputs[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      T* dx = a.in_grads[0].ptr<T>();
      for (int64_t i = 0, end = a.inputs[0].size(); i < end; ++i) {
        bool inside = x[i] >= static_cast<T>(p.a_min) && x[i] <= static_cast<T>(p.a_max);
        assign(dx[i], a.req[0], inside ? g[i] : T(0));
      }
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_elemwise_unary_ops(Registry& r) {
  using std::abs, std::exp, std::log, std::sqrt, std::tanh, std::sin, std::cos;
  add_unary(r, "exp", "e to the x.", [](auto x) { return exp(x); }, [](auto, auto y) { return y; });
  add_unary(r, "log", "Natural logarithm.", [](auto x) { return log(x); },
            [](auto x, auto) { return 1 / x; });
  add_unary(r, "log1p", "log(1 + x).", [](auto x) { return std::log1p(x); },
            [](auto x, auto) { return 1 / (1 + x); });
  add_unary(r, "expm1", "exp(x) - 1.", [](auto x) { return std::expm1(x); },
            [](auto, auto y) { return y + 1; });
  add_unary(r, "sqrt", "Square root.", [](auto x) { return sqrt(x); },
            [](auto, auto y) { return decltype(y)(0.5) / y; });
  add_unary(r, "rsqrt", "1 / sqrt(x).", [](auto x) { return 1 / sqrt(x); },
            [](auto, auto y) { return decltype(y)(-0.5) * y * y * y; });
  add_unary(r, "square", "x * x.", [](auto x) { return x * x; }, [](auto x, auto) { return 2 * x; });
  add_unary(r, "reciprocal", "1 / x.", [](auto x) { return 1 / x; },
            [](auto x, auto) { return -1 / (x * x); });
  add_unary(r, "negative", "-x.", [](auto x) { return -x; },
            [](auto x, auto) { return decltype(x)(-1); });
  add_unary(r, "abs", "|x|.", [](auto x) { return abs(x); },
            [](auto x, auto) { return decltype(x)(x > 0 ? 1 : (x < 0 ? -1 : 0)); });
  add_unary(r, "tanh", "Hyperbolic tangent.", [](auto x) { return tanh(x); },
            [](auto, auto y) { return 1 - y * y; });
  add_unary(r, "sigmoid", "1 / (1 + exp(-x)).", [](auto x) { return sigmoid(x); },
            [](auto, auto y) { return y * (1 - y); });
  add_unary(r, "relu", "max(x, 0).", [](auto x) { return x > 0 ? x : decltype(x)(0); },
            [](auto x, auto) { return decltype(x)(x > 0 ? 1 : 0); });
  add_unary(r, "softrelu", "log(1 + exp(x)).", [](auto x) { return softrelu(x); },
            [](auto x, auto) { return sigmoid(x); });
  add_unary(r, "sin", "Sine.", [](auto x) { return sin(x); }, [](auto x, auto) { return cos(x); });
  add_unary(r, "cos", "Cosine.", [](auto x) { return cos(x); }, [](auto x, auto) { return -sin(x); });
  add_unary(r, "sign", "-1, 0 or 1.", [](auto x) { return decltype(x)(x > 0 ? 1 : (x < 0 ? -1 : 0)); },
            kZero, true);
  add_unary(r, "floor", "Round down.", [](auto x) { return std::floor(x); }, kZero, true);
  add_unary(r, "ceil", "Round up.", [](auto x) { return std::ceil(x); }, kZero, true);
  add_unary(r, "round", "Round half away from zero.", [](auto x) { return std::round(x); }, kZero, true);
  add_unary(r, "rint", "Round half to even.", [](auto x) { return std::nearbyint(x); }, kZero, true);
  add_unary(r, "trunc", "Round toward zero.", [](auto x) { return std::trunc(x); }, kZero, true);
  add_unary(r, "fix", "Round toward zero.", [](auto x) { return std::trunc(x); }, kZero, true);
  add_clip(r);
}

}  // namespace braid::op::detail
