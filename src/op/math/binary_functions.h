#pragma once
// The math of the binary ops, same-shape, broadcast and with a scalar (_plus_scalar), written
// once for the CPU kernels and the CUDA kernels: f(a, b), and the partial derivatives
// dl = df/da and dr = df/db given a, b and the result z.
#include <cmath>
#include <type_traits>

#include "op/math/host_device.h"

namespace braid::op::math {

template <class T>
BRAID_HOST_DEVICE T pow_of(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::pow(static_cast<double>(a), static_cast<double>(b)));
  } else {
    return std::pow(a, b);
  }
}

struct AddFn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return a + b;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T, T, T) {
    return T(1);
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T, T, T) {
    return T(1);
  }
};
struct SubFn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return a - b;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T, T, T) {
    return T(1);
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T, T, T) {
    return T(-1);
  }
};
struct MulFn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return a * b;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T, T b, T) {
    return b;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T a, T, T) {
    return a;
  }
};
struct DivFn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return a / b;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T, T b, T) {
    return T(1) / b;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T a, T b, T) {
    return -a / (b * b);
  }
};
struct PowerFn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return pow_of(a, b);
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T a, T b, T) {
    return static_cast<T>(b * pow_of(a, static_cast<T>(b - T(1))));
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T a, T, T z) {
    return a > T(0) ? static_cast<T>(z * std::log(a)) : T(0);
  }
};
// NaN in either operand gives NaN, as NumPy and MXNet (a != a only for NaN).
struct MaximumFn {  // the gradient goes to the left operand on ties, as in MXNet
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return (a != a || a >= b) ? a : b;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T a, T b, T) {
    return a >= b ? T(1) : T(0);
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T a, T b, T) {
    return a >= b ? T(0) : T(1);
  }
};
struct MinimumFn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return (a != a || a <= b) ? a : b;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T a, T b, T) {
    return a <= b ? T(1) : T(0);
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T a, T b, T) {
    return a <= b ? T(0) : T(1);
  }
};
struct HypotFn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return static_cast<T>(std::hypot(static_cast<double>(a), static_cast<double>(b)));
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T a, T, T z) {
    return a / z;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T, T b, T z) {
    return b / z;
  }
};

/// smooth_l1(x, sigma): 0.5 (sigma x)^2 where |x| < 1 / sigma^2, else |x| - 0.5 / sigma^2 (the
/// Fast R-CNN box loss). Only its scalar form exists: the gradient wrt sigma is not defined.
struct SmoothL1Fn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T x, T sigma) {
    const T s2 = sigma * sigma;
    const T ax = x < T(0) ? -x : x;
    return ax < T(1) / s2 ? T(0.5) * s2 * x * x : ax - T(0.5) / s2;
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T x, T sigma, T) {
    const T s2 = sigma * sigma;
    const T ax = x < T(0) ? -x : x;
    return ax < T(1) / s2 ? s2 * x : (x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)));
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T, T, T) {
    return T(0);
  }
};

/// a mod b with the sign of b (Python's %, MXNet's mod); 0 where b is 0.
template <class T>
BRAID_HOST_DEVICE T mod_of(T a, T b) {
  if (b == T(0)) return T(0);
  if constexpr (std::is_integral_v<T>) {
    const T r = static_cast<T>(a % b);
    return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? static_cast<T>(r + b) : r;
  } else {
    const T r = std::fmod(a, b);
    return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? r + b : r;
  }
}

// On integers the remainder has no gradient (zero), as in MXNet.
struct ModFn {
  static constexpr bool differentiable = true;
  template <class T>
  BRAID_HOST_DEVICE static T f(T a, T b) {
    return mod_of(a, b);
  }
  template <class T>
  BRAID_HOST_DEVICE static T dl(T, T, T) {
    return std::is_integral_v<T> ? T(0) : T(1);
  }
  template <class T>
  BRAID_HOST_DEVICE static T dr(T a, T b, T) {
    if (std::is_integral_v<T> || b == T(0)) return T(0);
    return static_cast<T>(-std::floor(static_cast<double>(a) / static_cast<double>(b)));
  }
};

// Comparisons give 1 or 0 in the operands' dtype (MXNet 1.x) and have no gradient.
#define BRAID_COMPARISON(NAME, EXPR)              \
  struct NAME {                                   \
    static constexpr bool differentiable = false; \
    template <class T>                            \
    BRAID_HOST_DEVICE static T f(T a, T b) {      \
      return (EXPR) ? T(1) : T(0);                \
    }                                             \
  };
BRAID_COMPARISON(EqualFn, a == b)
BRAID_COMPARISON(NotEqualFn, a != b)
BRAID_COMPARISON(GreaterFn, a > b)
BRAID_COMPARISON(GreaterEqualFn, a >= b)
BRAID_COMPARISON(LesserFn, a < b)
BRAID_COMPARISON(LesserEqualFn, a <= b)
BRAID_COMPARISON(LogicalAndFn, a != T(0) && b != T(0))
BRAID_COMPARISON(LogicalOrFn, a != T(0) || b != T(0))
BRAID_COMPARISON(LogicalXorFn, (a != T(0)) != (b != T(0)))
#undef BRAID_COMPARISON

/// Calls visit(name, stem, Functor{}) for every same-shape binary op, whose broadcasting twin
/// is broadcast_<stem>: the one list that both the CPU and the CUDA registration walk.
template <class Visit>
void for_each_binary_op(Visit&& visit) {
  visit("elemwise_add", "add", AddFn{});
  visit("elemwise_sub", "sub", SubFn{});
  visit("elemwise_mul", "mul", MulFn{});
  visit("elemwise_div", "div", DivFn{});
  visit("_power", "power", PowerFn{});
  visit("_maximum", "maximum", MaximumFn{});
  visit("_minimum", "minimum", MinimumFn{});
  visit("_hypot", "hypot", HypotFn{});
  visit("_equal", "equal", EqualFn{});
  visit("_not_equal", "not_equal", NotEqualFn{});
  visit("_greater", "greater", GreaterFn{});
  visit("_greater_equal", "greater_equal", GreaterEqualFn{});
  visit("_lesser", "lesser", LesserFn{});
  visit("_lesser_equal", "lesser_equal", LesserEqualFn{});
  visit("_mod", "mod", ModFn{});
  visit("_logical_and", "logical_and", LogicalAndFn{});
  visit("_logical_or", "logical_or", LogicalOrFn{});
  visit("_logical_xor", "logical_xor", LogicalXorFn{});
}

}  // namespace braid::op::math
