// Activation: relu, sigmoid, tanh, softrelu (softplus) and softsign, elementwise.
#include <algorithm>

#include "activation.h"
#include "eltwise_softmax_dnnl.h"
#include "op/math/unary_functions.h"

namespace braid::op::detail {
namespace {

// Each activation is y = f(x) with dy/dx = df(x, y); kDnnl marks those oneDNN computes in
// float32 with algorithm kAlg.
struct Relu {  // y > 0 exactly where x > 0: the gradient needs the output only
  static constexpr bool kDnnl = true;
  static constexpr auto kAlg = dnnl::algorithm::eltwise_relu_use_dst_for_bwd;
  template <class T>
  static T f(T x) {
    return x > T(0) ? x : T(0);
  }
  template <class T>
  static T df(T, T y) {
    return y > T(0) ? T(1) : T(0);
  }
};
struct Sigmoid {
  static constexpr bool kDnnl = true;
  static constexpr auto kAlg = dnnl::algorithm::eltwise_logistic_use_dst_for_bwd;
  template <class T>
  static T f(T x) {
    return math::sigmoid(x);
  }
  template <class T>
  static T df(T, T y) {
    return y * (T(1) - y);
  }
};
struct Tanh {
  static constexpr bool kDnnl = true;
  static constexpr auto kAlg = dnnl::algorithm::eltwise_tanh_use_dst_for_bwd;
  template <class T>
  static T f(T x) {
    return std::tanh(x);
  }
  template <class T>
  static T df(T, T y) {
    return T(1) - y * y;
  }
};
struct SoftReLU {  // log(1 + exp(x)); above 20 it equals x in floating point (as MXNet)
  static constexpr bool kDnnl = true;
  static constexpr auto kAlg = dnnl::algorithm::eltwise_soft_relu;
  template <class T>
  static T f(T x) {
    return x > T(20) ? x : std::log1p(std::exp(x));
  }
  template <class T>
  static T df(T x, T) {
    return math::sigmoid(x);
  }
};
struct SoftSign {
  static constexpr bool kDnnl = false;
  template <class T>
  static T f(T x) {
    return math::Softsign::f(x);
  }
  template <class T>
  static T df(T x, T y) {
    return math::Softsign::df(x, y);
  }
};

const std::vector<std::string> kActTypes = {"relu", "sigmoid", "tanh", "softrelu", "softsign"};

template <class F>
void with_act(size_t act, F&& f) {
  switch (act) {
    case 0:
      f(Relu{});
      break;
    case 1:
      f(Sigmoid{});
      break;
    case 2:
      f(Tanh{});
      break;
    case 3:
      f(SoftReLU{});
      break;
    default:
      f(SoftSign{});
      break;
  }
}

std::any parse_activation(const AttrMap& attrs) {
  ParamReader rd(attrs, "Activation");
  rd.get<std::string>("act_type");  // required, no default in MXNet
  std::string t = rd.get_enum("act_type", kActTypes, "");
  rd.finish();
  ActivationParam p;
  p.act = static_cast<size_t>(std::find(kActTypes.begin(), kActTypes.end(), t) - kActTypes.begin());
  return p;
}

void activation_forward(const OpContext&, const std::any& pa, const ForwardArgs& a) {
  with_act(param<ActivationParam>(pa).act, [&](auto act) {
    using A = decltype(act);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Activation", {
      const T* x = a.inputs[0].ptr<T>();
      const int64_t n = a.inputs[0].size();
      if constexpr (A::kDnnl && std::is_same_v<T, float>) {
        write_with_req(a.outputs[0].ptr<T>(), n, a.req[0], [&](T* y) { dnnl_eltwise_forward({A::kAlg}, x, y, n); });
      } else {
        write_each(a.outputs[0].ptr<T>(), a.req[0], n, [x](int64_t i) { return A::f(x[i]); });
      }
    });
  });
}

void activation_backward(const OpContext&, const std::any& pa, const BackwardArgs& a) {
  with_act(param<ActivationParam>(pa).act, [&](auto act) {
    using A = decltype(act);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Activation", {
      const T* x = a.inputs[0].ptr<T>();
      const T* y = a.outputs[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      const int64_t n = a.inputs[0].size();
      if constexpr (A::kDnnl && std::is_same_v<T, float>) {
        write_with_req(a.in_grads[0].ptr<T>(), n, a.req[0],
                       [&](T* dx) { dnnl_eltwise_backward({A::kAlg}, x, y, g, dx, n); });
      } else {
        write_each(a.in_grads[0].ptr<T>(), a.req[0], n, [=](int64_t i) { return g[i] * A::df(x[i], y[i]); });
      }
    });
  });
}

}  // namespace

void register_activation_ops(Registry& r) {
  OpDef d;
  d.name = "Activation";
  d.doc =
      "Elementwise activation: act_type relu, sigmoid, tanh, softrelu (log(1 + exp(x))) or "
      "softsign (x / (1 + |x|)).";
  d.parse = parse_activation;
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("Activation", in, out);
  };
  d.cpu.forward = activation_forward;
  d.cpu.backward = activation_backward;
  d.elementwise = true;
  d.backward_reads = [](const std::any& p) {
    return BackwardReads{!param<ActivationParam>(p).grad_from_output(), true};
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
