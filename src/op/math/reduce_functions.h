#pragma once
// The math of the reductions (sum, mean, prod, max, min, norms and their NaN-skipping forms),
// written once for the CPU kernels (op/tensor/reduce_kernels.h) and CUDA kernels. A reducer
// `Op<T>` names its accumulator type `Acc` and provides init(), reduce(acc, x) (fold one
// element), combine(acc, acc) (merge partial results) and finish(acc, count) (the output value).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "op/math/host_device.h"

namespace braid::op::math {

/// Floats accumulate in double (a float32 sum of many terms would lose digits); integers
/// accumulate in their own type and wrap, as in MXNet.
template <class T>
using wide_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <class T>
BRAID_HOST_DEVICE bool is_nan(T x) {
  return x != x;  // false for integers
}

template <class T>
struct SumOp {
  using Acc = wide_t<T>;
  BRAID_HOST_DEVICE static Acc init() { return Acc(0); }
  BRAID_HOST_DEVICE static void reduce(Acc& a, T x) { a += x; }
  BRAID_HOST_DEVICE static void combine(Acc& a, Acc b) { a += b; }
  BRAID_HOST_DEVICE static T finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <class T>
struct MeanOp : SumOp<T> {
  BRAID_HOST_DEVICE static T finish(typename SumOp<T>::Acc a, int64_t n) {
    return static_cast<T>(a / static_cast<typename SumOp<T>::Acc>(n));
  }
};

template <class T>
struct NanSumOp : SumOp<T> {  // NaN counts as 0
  BRAID_HOST_DEVICE static void reduce(typename SumOp<T>::Acc& a, T x) { a += is_nan(x) ? T(0) : x; }
};

template <class T>
struct ProdOp {
  using Acc = wide_t<T>;
  BRAID_HOST_DEVICE static Acc init() { return Acc(1); }
  BRAID_HOST_DEVICE static void reduce(Acc& a, T x) { a *= x; }
  BRAID_HOST_DEVICE static void combine(Acc& a, Acc b) { a *= b; }
  BRAID_HOST_DEVICE static T finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <class T>
struct NanProdOp : ProdOp<T> {  // NaN counts as 1
  BRAID_HOST_DEVICE static void reduce(typename ProdOp<T>::Acc& a, T x) { a *= is_nan(x) ? T(1) : x; }
};

// max/min propagate NaN, as NumPy and MXNet do.
template <class T>
struct MaxOp {
  using Acc = T;
  BRAID_HOST_DEVICE static Acc init() {
    if constexpr (std::is_floating_point_v<T>)
      return -std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  }
  BRAID_HOST_DEVICE static void reduce(Acc& a, T x) { a = (a >= x || is_nan(a)) ? a : x; }
  BRAID_HOST_DEVICE static void combine(Acc& a, Acc b) { reduce(a, b); }
  BRAID_HOST_DEVICE static T finish(Acc a, int64_t) { return a; }
};

template <class T>
struct MinOp {
  using Acc = T;
  BRAID_HOST_DEVICE static Acc init() {
    if constexpr (std::is_floating_point_v<T>)
      return std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::max();
  }
  BRAID_HOST_DEVICE static void reduce(Acc& a, T x) { a = (a <= x || is_nan(a)) ? a : x; }
  BRAID_HOST_DEVICE static void combine(Acc& a, Acc b) { reduce(a, b); }
  BRAID_HOST_DEVICE static T finish(Acc a, int64_t) { return a; }
};

template <class T>
struct L1NormOp : SumOp<T> {
  BRAID_HOST_DEVICE static void reduce(typename SumOp<T>::Acc& a, T x) { a += x < T(0) ? -x : x; }
};

template <class T>
struct L2NormOp : SumOp<T> {
  BRAID_HOST_DEVICE static void reduce(typename SumOp<T>::Acc& a, T x) {
    a += static_cast<typename SumOp<T>::Acc>(x) * x;
  }
  BRAID_HOST_DEVICE static T finish(typename SumOp<T>::Acc a, int64_t) { return static_cast<T>(std::sqrt(a)); }
};

/// Product of the nonzero elements and the number of zeros: what the gradient of prod needs to
/// stay exact when an input is 0 (MXNet's out/x would give inf or NaN there).
template <class T, bool SkipNan>
struct ProdPartsOp {
  struct Acc {
    wide_t<T> nonzero = 1;
    int64_t zeros = 0;
  };
  BRAID_HOST_DEVICE static Acc init() { return {}; }
  BRAID_HOST_DEVICE static void reduce(Acc& a, T x) {
    if (SkipNan && is_nan(x)) return;
    if (x == T(0))
      ++a.zeros;
    else
      a.nonzero *= x;
  }
  BRAID_HOST_DEVICE static void combine(Acc& a, Acc b) {
    a.nonzero *= b.nonzero;
    a.zeros += b.zeros;
  }
};

/// Input gradients of the reductions, elementwise from the input x, the result y, the output
/// gradient g and the number n of elements folded into y.
struct PassGrad {  // sum
  template <class T>
  BRAID_HOST_DEVICE T operator()(T, T, T g, T) const {
    return g;
  }
};
struct MeanGrad {
  template <class T>
  BRAID_HOST_DEVICE T operator()(T, T, T g, T n) const {
    return g / n;
  }
};
struct NanSumGrad {
  template <class T>
  BRAID_HOST_DEVICE T operator()(T x, T, T g, T) const {
    return is_nan(x) ? T(0) : g;
  }
};
/// max and min: to every element equal to the result (MXNet's rule for ties).
struct ArgExtremumGrad {
  template <class T>
  BRAID_HOST_DEVICE T operator()(T x, T y, T g, T) const {
    return x == y ? g : T(0);
  }
};
/// d|x|/dx = sign(x).
struct L1NormGrad {
  template <class T>
  BRAID_HOST_DEVICE T operator()(T x, T, T g, T) const {
    return g * (x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)));
  }
};
/// d||x||_2/dx = x / ||x||_2, taken as 0 where the norm is 0 (the subgradient of smallest
/// magnitude, instead of MXNet's NaN).
struct L2NormGrad {
  template <class T>
  BRAID_HOST_DEVICE T operator()(T x, T y, T g, T) const {
    return y == T(0) ? T(0) : g * x / y;
  }
};

/// argmax and argmin: whether a beats the best so far b. NaN counts as the extreme (the first
/// NaN wins), as in NumPy; ties keep the first position.
struct ArgMaxBetter {
  template <class T>
  BRAID_HOST_DEVICE bool operator()(T a, T b) const {
    return a > b || (is_nan(a) && !is_nan(b));
  }
};
struct ArgMinBetter {
  template <class T>
  BRAID_HOST_DEVICE bool operator()(T a, T b) const {
    return a < b || (is_nan(a) && !is_nan(b));
  }
};

}  // namespace braid::op::math
