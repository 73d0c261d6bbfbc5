#pragma once
// The math of the element-wise unary ops, written once for the CPU kernels
// (op/tensor/elemwise_unary.cc) and the CUDA kernels (op/tensor/elemwise_unary.cu). Each
// functor gives y = f(x) and the derivative df(x, y) = dy/dx; those with `zero_gradient` have a
// gradient of zero almost everywhere (rounding, sign). Instantiated for float and double.
#include <cmath>

#include "op/math/host_device.h"
#include "op/math/special_functions.h"

namespace braid::op::math {

template <class T>
BRAID_HOST_DEVICE T sigmoid(T x) {
  return x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x));
}

#define BRAID_UNARY(NAME, F, DF)                                                \
  struct NAME {                                                                 \
    static constexpr bool zero_gradient = false;                                \
    template <class T>                                                          \
    BRAID_HOST_DEVICE static T f(T x) {                                         \
      return F;                                                                 \
    }                                                                           \
    template <class T>                                                          \
    BRAID_HOST_DEVICE static T df([[maybe_unused]] T x, [[maybe_unused]] T y) { \
      return DF;                                                                \
    }                                                                           \
  };
#define BRAID_ROUNDING(NAME, F)                 \
  struct NAME {                                 \
    static constexpr bool zero_gradient = true; \
    template <class T>                          \
    BRAID_HOST_DEVICE static T f(T x) {         \
      return F;                                 \
    }                                           \
    template <class T>                          \
    BRAID_HOST_DEVICE static T df(T, T) {       \
      return T(0);                              \
    }                                           \
  };

BRAID_UNARY(Exp, std::exp(x), y)
BRAID_UNARY(Log, std::log(x), T(1) / x)
BRAID_UNARY(Log1p, std::log1p(x), T(1) / (T(1) + x))
BRAID_UNARY(Expm1, std::expm1(x), y + T(1))
BRAID_UNARY(Sqrt, std::sqrt(x), T(0.5) / y)
BRAID_UNARY(Rsqrt, T(1) / std::sqrt(x), T(-0.5) * y * y * y)
BRAID_UNARY(Square, x* x, T(2) * x)
BRAID_UNARY(Reciprocal, T(1) / x, T(-1) / (x * x))
BRAID_UNARY(Negative, -x, T(-1))
BRAID_UNARY(Abs, std::abs(x), x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)))
BRAID_UNARY(Tanh, std::tanh(x), T(1) - y * y)
BRAID_UNARY(Sigmoid, sigmoid(x), y*(T(1) - y))
// NaN passes through, and is its gradient, as in MXNet.
BRAID_UNARY(Relu, (x != x || x > T(0)) ? x : T(0), x != x ? x : (x > T(0) ? T(1) : T(0)))
// log(1 + exp(x)), stable for large x.
BRAID_UNARY(Softrelu, x > T(20) ? x : std::log1p(std::exp(x)), sigmoid(x))
// x / (1 + |x|).
BRAID_UNARY(Softsign, x / (T(1) + std::abs(x)), T(1) / ((T(1) + std::abs(x)) * (T(1) + std::abs(x))))
BRAID_UNARY(Sin, std::sin(x), std::cos(x))
BRAID_UNARY(Cos, std::cos(x), -std::sin(x))
BRAID_UNARY(Tan, std::tan(x), T(1) + y * y)
BRAID_UNARY(Arcsin, std::asin(x), T(1) / std::sqrt(T(1) - x * x))
BRAID_UNARY(Arccos, std::acos(x), T(-1) / std::sqrt(T(1) - x * x))
BRAID_UNARY(Arctan, std::atan(x), T(1) / (T(1) + x * x))
BRAID_UNARY(Sinh, std::sinh(x), std::cosh(x))
BRAID_UNARY(Cosh, std::cosh(x), std::sinh(x))
BRAID_UNARY(Arcsinh, std::asinh(x), T(1) / std::sqrt(x * x + T(1)))
BRAID_UNARY(Arccosh, std::acosh(x), T(1) / std::sqrt(x * x - T(1)))
BRAID_UNARY(Arctanh, std::atanh(x), T(1) / (T(1) - x * x))
BRAID_UNARY(Log2, std::log2(x), T(1) / (x * T(0.693147180559945309417)))
BRAID_UNARY(Log10, std::log10(x), T(1) / (x * T(2.30258509299404568402)))
BRAID_UNARY(Cbrt, std::cbrt(x), T(1) / (T(3) * y * y))
BRAID_UNARY(Rcbrt, T(1) / std::cbrt(x), T(-1) / T(3) * y / x)
BRAID_UNARY(Radians, x* T(0.0174532925199432957692), T(0.0174532925199432957692))
BRAID_UNARY(Degrees, x* T(57.2957795130823208768), T(57.2957795130823208768))
BRAID_UNARY(Gamma, std::tgamma(x), y* digamma(x))
BRAID_UNARY(Gammaln, std::lgamma(x), digamma(x))
BRAID_UNARY(Erf, std::erf(x), T(1.12837916709551257390) * std::exp(-x * x))
BRAID_UNARY(Erfinv, erfinv(x), T(0.886226925452758013649) * std::exp(y * y))
BRAID_ROUNDING(Sign, x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)))
BRAID_ROUNDING(Floor, std::floor(x))
BRAID_ROUNDING(Ceil, std::ceil(x))
BRAID_ROUNDING(Round, std::round(x))
BRAID_ROUNDING(Rint, std::nearbyint(x))
BRAID_ROUNDING(Trunc, std::trunc(x))
BRAID_ROUNDING(LogicalNot, x == T(0) ? T(1) : T(0))
#undef BRAID_UNARY
#undef BRAID_ROUNDING

/// Calls visit(name, doc, Functor{}) for every element-wise unary op: the one list that both
/// the CPU and the CUDA registration walk.
template <class Visit>
void for_each_unary_op(Visit&& visit) {
  visit("exp", "e to the x.", Exp{});
  visit("log", "Natural logarithm.", Log{});
  visit("log1p", "log(1 + x).", Log1p{});
  visit("expm1", "exp(x) - 1.", Expm1{});
  visit("sqrt", "Square root.", Sqrt{});
  visit("rsqrt", "1 / sqrt(x).", Rsqrt{});
  visit("square", "x * x.", Square{});
  visit("reciprocal", "1 / x.", Reciprocal{});
  visit("negative", "-x.", Negative{});
  visit("abs", "|x|.", Abs{});
  visit("tanh", "Hyperbolic tangent.", Tanh{});
  visit("sigmoid", "1 / (1 + exp(-x)).", Sigmoid{});
  visit("relu", "max(x, 0).", Relu{});
  visit("softrelu", "log(1 + exp(x)).", Softrelu{});
  visit("softsign", "x / (1 + |x|).", Softsign{});
  visit("sin", "Sine.", Sin{});
  visit("cos", "Cosine.", Cos{});
  visit("tan", "Tangent.", Tan{});
  visit("arcsin", "Inverse sine.", Arcsin{});
  visit("arccos", "Inverse cosine.", Arccos{});
  visit("arctan", "Inverse tangent.", Arctan{});
  visit("sinh", "Hyperbolic sine.", Sinh{});
  visit("cosh", "Hyperbolic cosine.", Cosh{});
  visit("arcsinh", "Inverse hyperbolic sine.", Arcsinh{});
  visit("arccosh", "Inverse hyperbolic cosine.", Arccosh{});
  visit("arctanh", "Inverse hyperbolic tangent.", Arctanh{});
  visit("log2", "Base-2 logarithm.", Log2{});
  visit("log10", "Base-10 logarithm.", Log10{});
  visit("cbrt", "Cube root.", Cbrt{});
  visit("rcbrt", "1 / cbrt(x).", Rcbrt{});
  visit("radians", "Degrees to radians.", Radians{});
  visit("degrees", "Radians to degrees.", Degrees{});
  visit("gamma", "The gamma function.", Gamma{});
  visit("gammaln", "log |gamma(x)|.", Gammaln{});
  visit("erf", "The error function.", Erf{});
  visit("erfinv", "The inverse error function.", Erfinv{});
  visit("sign", "-1, 0 or 1.", Sign{});
  visit("floor", "Round down.", Floor{});
  visit("ceil", "Round up.", Ceil{});
  visit("round", "Round half away from zero.", Round{});
  visit("rint", "Round half to even.", Rint{});
  visit("trunc", "Round toward zero.", Trunc{});
  visit("fix", "Round toward zero.", Trunc{});
  visit("logical_not", "1 where x is 0, else 0.", LogicalNot{});
}

/// clip: x limited to [lo, hi]; its gradient passes where lo <= x <= hi. Any dtype.
template <class T>
BRAID_HOST_DEVICE T clip(T x, T lo, T hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}
template <class T>
BRAID_HOST_DEVICE bool clip_passes(T x, T lo, T hi) {
  return x >= lo && x <= hi;
}

}  // namespace braid::op::math
