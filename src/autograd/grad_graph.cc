// The gradients written as operators (see grad_graph.h). Each formula uses only operators that
// have a formula here too (or whose gradient is zero: comparisons, sign), so gradients of any
// order can be taken through them.
#include "grad_graph.h"

#include <cmath>
#include <functional>
#include <string>
#include <unordered_map>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "braid/ndarray/reduce.h"
#include "braid/op/param_reader.h"
#include "op/nn/dropout.h"
#include "op/nn/fully_connected.h"
#include "op/tensor/clip_param.h"
#include "op/tensor/elemwise_scalar.h"
#include "op/tensor/matrix_dot.h"

namespace braid::autograd::detail {
namespace {

struct Args {
  const std::any& param;
  const std::vector<NDArray>& in;
  const std::vector<NDArray>& out;
  const std::vector<NDArray>& dout;
  const NDArray& x() const { return in[0]; }
  const NDArray& y() const { return out[0]; }
  const NDArray& dy() const { return dout[0]; }
};

using Formula = std::function<std::vector<NDArray>(const Args&)>;

NDArray op(const std::string& name, const std::vector<NDArray>& inputs, const op::AttrMap& attrs = {}) {
  return nd::invoke1(name, inputs, attrs);
}
NDArray mul(const NDArray& a, const NDArray& b) { return op("elemwise_mul", {a, b}); }
NDArray div(const NDArray& a, const NDArray& b) { return op("elemwise_div", {a, b}); }
NDArray neg(const NDArray& a) { return op("negative", {a}); }
NDArray scalar_op(const std::string& name, const NDArray& a, double s) {
  return op(name, {a}, {{"scalar", op::format_number(s)}});
}
NDArray scale(const NDArray& a, double s) { return scalar_op("_mul_scalar", a, s); }
double scalar_of(const Args& a) { return std::any_cast<const op::detail::ScalarParam&>(a.param).scalar; }

NDArray one_minus_square(const NDArray& x) { return scalar_op("_rminus_scalar", mul(x, x), 1); }

/// An elementwise op of one input: dx = dy * f'(x, y).
Formula unary(std::function<NDArray(const NDArray& x, const NDArray& y)> derivative) {
  return [derivative](const Args& a) { return std::vector<NDArray>{mul(a.dy(), derivative(a.x(), a.y()))}; };
}

/// f'(x) = (x² + c)^(-1/2) of arcsinh (c = 1) and arccosh (c = -1), recorded with MXNet 1.9's
/// derivative x·f'(x)³, so that second-order gradients are MXNet's: its FGradient of
/// _backward_arcsinh and _backward_arccosh, and the tests checking them, have the opposite sign of
/// the true −x·f'(x)³.
NDArray inverse_hyperbolic_derivative(const NDArray& x, double c) {
  NDArray d;
  {
    PauseScope pause;
    d = op("rsqrt", {scalar_op("_plus_scalar", mul(x, x), c)});
  }
  record_custom_function({x}, {d}, [x, d](const std::vector<NDArray>& out_grads) {
    return std::vector<NDArray>{mul(out_grads[0], mul(x, mul(d, mul(d, d))))};
  });
  return d;
}

/// dot of 2-d operands with transpose flags: C = op(A) op(B).
std::vector<NDArray> dot_gradient(const Args& a) {
  const auto& p = std::any_cast<const op::detail::DotParam&>(a.param);
  const NDArray &A = a.in[0], &B = a.in[1], &dC = a.dy();
  NDArray dA = p.transpose_a ? nd::dot(B, dC, p.transpose_b, true) : nd::dot(dC, B, false, !p.transpose_b);
  NDArray dB = p.transpose_b ? nd::dot(dC, A, true, p.transpose_a) : nd::dot(A, dC, !p.transpose_a, false);
  return {dA, dB};
}

/// FullyConnected: y = x2 · wᵀ + b over the rows x2 of x (flatten: axis 0 the rows; else every
/// axis but the last).
std::vector<NDArray> fully_connected_gradient(const Args& a) {
  const auto& p = std::any_cast<const op::detail::FCParam&>(a.param);
  const NDArray &x = a.in[0], &w = a.in[1];
  NDArray x2 = p.flatten ? x.reshape({x.shape()[0], -1}) : x.reshape({-1, x.shape()[x.ndim() - 1]});
  NDArray dy2 = a.dy().reshape({-1, p.num_hidden});
  std::vector<NDArray> grads{nd::dot(dy2, w).reshape(x.shape().dims()), nd::dot(dy2, x2, true, false)};
  if (!p.no_bias) grads.push_back(nd::sum(dy2, {0}));
  return grads;
}

const std::unordered_map<std::string, Formula>& formulas() {
  static const std::unordered_map<std::string, Formula> table = [] {
    std::unordered_map<std::string, Formula> t;
    t["elemwise_add"] = [](const Args& a) { return std::vector<NDArray>{a.dy(), a.dy()}; };
    t["elemwise_sub"] = [](const Args& a) { return std::vector<NDArray>{a.dy(), neg(a.dy())}; };
    t["elemwise_mul"] = [](const Args& a) { return std::vector<NDArray>{mul(a.dy(), a.in[1]), mul(a.dy(), a.in[0])}; };
    t["elemwise_div"] = [](const Args& a) {  // y = l / r: dl = dy / r, dr = -dy * y / r
      return std::vector<NDArray>{div(a.dy(), a.in[1]), neg(div(mul(a.dy(), a.y()), a.in[1]))};
    };
    t["negative"] = [](const Args& a) { return std::vector<NDArray>{neg(a.dy())}; };
    t["_plus_scalar"] = [](const Args& a) { return std::vector<NDArray>{a.dy()}; };
    t["_minus_scalar"] = t["_plus_scalar"];
    t["_rminus_scalar"] = t["negative"];
    t["_mul_scalar"] = [](const Args& a) { return std::vector<NDArray>{scale(a.dy(), scalar_of(a))}; };
    t["_div_scalar"] = [](const Args& a) { return std::vector<NDArray>{scale(a.dy(), 1.0 / scalar_of(a))}; };
    t["_rdiv_scalar"] = unary([](const NDArray& x, const NDArray& y) { return neg(div(y, x)); });  // s/x
    t["_power_scalar"] = [](const Args& a) {                                                       // x^s: s x^(s-1)
      const double s = scalar_of(a);
      return std::vector<NDArray>{mul(a.dy(), scale(scalar_op("_power_scalar", a.x(), s - 1), s))};
    };
    t["sin"] = unary([](const NDArray& x, const NDArray&) { return op("cos", {x}); });
    t["cos"] = unary([](const NDArray& x, const NDArray&) { return neg(op("sin", {x})); });
    t["tan"] = unary([](const NDArray&, const NDArray& y) { return scalar_op("_plus_scalar", mul(y, y), 1); });
    t["arcsin"] = unary([](const NDArray& x, const NDArray&) { return op("rsqrt", {one_minus_square(x)}); });
    t["arccos"] = unary([](const NDArray& x, const NDArray&) { return neg(op("rsqrt", {one_minus_square(x)})); });
    t["arctan"] = unary(
        [](const NDArray& x, const NDArray&) { return op("reciprocal", {scalar_op("_plus_scalar", mul(x, x), 1)}); });
    t["sinh"] = unary([](const NDArray& x, const NDArray&) { return op("cosh", {x}); });
    t["cosh"] = unary([](const NDArray& x, const NDArray&) { return op("sinh", {x}); });
    t["arcsinh"] = unary([](const NDArray& x, const NDArray&) { return inverse_hyperbolic_derivative(x, 1); });
    t["arccosh"] = unary([](const NDArray& x, const NDArray&) { return inverse_hyperbolic_derivative(x, -1); });
    t["arctanh"] = unary([](const NDArray& x, const NDArray&) { return op("reciprocal", {one_minus_square(x)}); });
    t["log2"] = [](const Args& a) { return std::vector<NDArray>{div(a.dy(), scale(a.x(), std::log(2.0)))}; };
    t["log10"] = [](const Args& a) { return std::vector<NDArray>{div(a.dy(), scale(a.x(), std::log(10.0)))}; };
    t["cbrt"] = [](const Args& a) { return std::vector<NDArray>{div(a.dy(), scale(mul(a.y(), a.y()), 3))}; };
    t["rcbrt"] = unary([](const NDArray& x, const NDArray& y) { return scale(div(y, x), -1.0 / 3); });
    t["radians"] = [](const Args& a) { return std::vector<NDArray>{scale(a.dy(), M_PI / 180)}; };
    t["degrees"] = [](const Args& a) { return std::vector<NDArray>{scale(a.dy(), 180 / M_PI)}; };
    t["exp"] = unary([](const NDArray&, const NDArray& y) { return y; });
    t["expm1"] = unary([](const NDArray&, const NDArray& y) { return scalar_op("_plus_scalar", y, 1); });
    t["log"] = [](const Args& a) { return std::vector<NDArray>{div(a.dy(), a.x())}; };
    t["log1p"] = [](const Args& a) { return std::vector<NDArray>{div(a.dy(), scalar_op("_plus_scalar", a.x(), 1))}; };
    t["sqrt"] = [](const Args& a) { return std::vector<NDArray>{div(a.dy(), scale(a.y(), 2))}; };
    t["rsqrt"] = unary([](const NDArray&, const NDArray& y) { return scale(mul(mul(y, y), y), -0.5); });
    t["square"] = unary([](const NDArray& x, const NDArray&) { return scale(x, 2); });
    t["reciprocal"] = unary([](const NDArray&, const NDArray& y) { return neg(mul(y, y)); });
    t["tanh"] = unary([](const NDArray&, const NDArray& y) { return scalar_op("_rminus_scalar", mul(y, y), 1); });
    t["sigmoid"] = unary([](const NDArray&, const NDArray& y) { return mul(y, scalar_op("_rminus_scalar", y, 1)); });
    t["relu"] = unary([](const NDArray& x, const NDArray&) { return scalar_op("_greater_scalar", x, 0); });
    t["abs"] = unary([](const NDArray& x, const NDArray&) { return op("sign", {x}); });
    t["clip"] = [](const Args& a) {
      const auto& p = std::any_cast<const op::detail::ClipParam&>(a.param);
      NDArray inside =
          mul(scalar_op("_greater_equal_scalar", a.x(), p.a_min), scalar_op("_lesser_equal_scalar", a.x(), p.a_max));
      return std::vector<NDArray>{mul(a.dy(), inside)};
    };
    // The mask (output 1) is a constant of the draw: 0 or 1 / (1 - p).
    t["Dropout"] = [](const Args& a) { return std::vector<NDArray>{mul(a.dy(), a.out[1].detach())}; };
    t["dot"] = [](const Args& a) -> std::vector<NDArray> {
      if (a.in[0].ndim() != 2 || a.in[1].ndim() != 2) return {};
      return dot_gradient(a);
    };
    t["FullyConnected"] = fully_connected_gradient;
    return t;
  }();
  return table;
}

}  // namespace

std::optional<std::vector<NDArray>> gradient_from_ops(const op::OpDef& def, const std::any& param,
                                                      const std::vector<NDArray>& inputs,
                                                      const std::vector<NDArray>& outputs,
                                                      const std::vector<NDArray>& out_grads) {
  auto it = formulas().find(def.name);
  if (it == formulas().end()) return std::nullopt;
  std::vector<NDArray> grads = it->second(Args{param, inputs, outputs, out_grads});
  if (grads.empty()) return std::nullopt;  // not for these operands (dot of more than 2 axes)
  return grads;
}

}  // namespace braid::autograd::detail
