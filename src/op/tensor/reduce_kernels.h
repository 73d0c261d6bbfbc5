#pragma once
// Reduction kernels over a ReducePlan. A reducer `Op<T>` names its accumulator type `Acc` and
// provides init(), reduce(acc, x) (fold one element), combine(acc, acc) (merge partial results)
// and finish(acc, count) (the output value).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "braid/op/tensor.h"
#include "reduce_plan.h"

namespace braid::op::detail {

/// Floats accumulate in double (a float32 sum of many terms would lose digits); integers
/// accumulate in their own type and wrap, as in MXNet.
template <class T>
using wide_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <class T>
bool is_nan(T x) {
  return x != x;  // false for integers
}

template <class T>
struct SumOp {
  using Acc = wide_t<T>;
  static Acc init() { return Acc(0); }
  static void reduce(Acc& a, T x) { a += x; }
  static void combine(Acc& a, Acc b) { a += b; }
  static T finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <class T>
struct MeanOp : SumOp<T> {
  static T finish(typename SumOp<T>::Acc a, int64_t n) {
    return static_cast<T>(a / static_cast<typename SumOp<T>::Acc>(n));
  }
};

template <class T>
struct NanSumOp : SumOp<T> {  // NaN counts as 0
  static void reduce(typename SumOp<T>::Acc& a, T x) { a += is_nan(x) ? T(0) : x; }
};

template <class T>
struct ProdOp {
  using Acc = wide_t<T>;
  static Acc init() { return Acc(1); }
  static void reduce(Acc& a, T x) { a *= x; }
  static void combine(Acc& a, Acc b) { a *= b; }
  static T finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <class T>
struct NanProdOp : ProdOp<T> {  // NaN counts as 1
  static void reduce(typename ProdOp<T>::Acc& a, T x) { a *= is_nan(x) ? T(1) : x; }
};

// max/min propagate NaN, as NumPy and MXNet do.
template <class T>
struct MaxOp {
  using Acc = T;
  static Acc init() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  static void reduce(Acc& a, T x) { a = (a >= x || is_nan(a)) ? a : x; }
  static void combine(Acc& a, Acc b) { reduce(a, b); }
  static T finish(Acc a, int64_t) { return a; }
};

template <class T>
struct MinOp {
  using Acc = T;
  static Acc init() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  static void reduce(Acc& a, T x) { a = (a <= x || is_nan(a)) ? a : x; }
  static void combine(Acc& a, Acc b) { reduce(a, b); }
  static T finish(Acc a, int64_t) { return a; }
};

template <class T>
struct L1NormOp : SumOp<T> {
  static void reduce(typename SumOp<T>::Acc& a, T x) { a += x < T(0) ? -x : x; }
};

template <class T>
struct L2NormOp : SumOp<T> {
  static void reduce(typename SumOp<T>::Acc& a, T x) { a += static_cast<typename SumOp<T>::Acc>(x) * x; }
  static T finish(typename SumOp<T>::Acc a, int64_t) { return static_cast<T>(std::sqrt(a)); }
};

/// Product of the nonzero elements and the number of zeros: what the gradient of prod needs to
/// stay exact when an input is 0 (MXNet's out/x would give inf or NaN there).
template <class T, bool SkipNan>
struct ProdPartsOp {
  struct Acc {
    wide_t<T> nonzero = 1;
    int64_t zeros = 0;
  };
  static Acc init() { return {}; }
  static void reduce(Acc& a, T x) {
    if (SkipNan && is_nan(x)) return;
    if (x == T(0)) ++a.zeros;
    else a.nonzero *= x;
  }
  static void combine(Acc& a, Acc b) {
    a.nonzero *= b.nonzero;
    a.zeros += b.zeros;
  }
};

/// Folds `len` contiguous elements with independent partial accumulators, so the loop is not
/// bound by the latency of one dependency chain.
template <class R, class T>
typename R::Acc reduce_contiguous(const T* x, int64_t len) {
  constexpr int kLanes = 16;
  typename R::Acc lane[kLanes];
  for (auto& l : lane) l = R::init();
  int64_t r = 0;
  for (; r + kLanes <= len; r += kLanes)
    for (int k = 0; k < kLanes; ++k) R::reduce(lane[k], x[r + k]);
  for (; r < len; ++r) R::reduce(lane[0], x[r]);
  for (int k = 1; k < kLanes; ++k) R::combine(lane[0], lane[k]);
  return lane[0];
}

/// Folds `rows` rows of `n` elements into acc[0..n) (an outer reduction). Blocks of columns
/// accumulate in locals across all rows, which the compiler keeps in vector registers; each cache
/// line of x is still read once.
template <class R, class T>
void reduce_rows(typename R::Acc* acc, const T* x, int64_t rows, int64_t n) {
  constexpr int kCols = 16;
  int64_t i = 0;
  for (; i + kCols <= n; i += kCols) {
    typename R::Acc a[kCols];
    for (int k = 0; k < kCols; ++k) a[k] = acc[i + k];
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * n + i;
      for (int k = 0; k < kCols; ++k) R::reduce(a[k], xr[k]);
    }
    for (int k = 0; k < kCols; ++k) acc[i + k] = a[k];
  }
  if (i == n) return;
  for (int64_t r = 0; r < rows; ++r)  // the last n % kCols columns
    for (int64_t j = i; j < n; ++j) R::reduce(acc[j], x[r * n + j]);
}

/// The accumulators of every output element.
template <class R, class T>
std::vector<typename R::Acc> reduce_accumulate(const ReducePlan& plan, const T* x) {
  std::vector<typename R::Acc> acc(static_cast<size_t>(plan.out_size()), R::init());
  const int64_t rows = plan.rows(), n = plan.inner();
  plan.for_each_block([&](int64_t in_off, int64_t out_off) {
    const T* xb = x + in_off;
    auto* ab = acc.data() + out_off;
    if (n == 1) {  // contiguous inner reduction
      R::combine(ab[0], reduce_contiguous<R>(xb, rows));
      return;
    }
    reduce_rows<R>(ab, xb, rows, n);
  });
  return acc;
}

template <template <class> class Op, class T>
void reduce_forward(const ReducePlan& plan, const TBlob& in, const TBlob& out, OpReq req) {
  using R = Op<T>;
  if (req == OpReq::Null) return;
  auto acc = reduce_accumulate<R>(plan, in.ptr<T>());
  T* y = out.ptr<T>();
  for (int64_t o = 0; o < plan.out_size(); ++o)
    assign(y[o], req, R::finish(acc[static_cast<size_t>(o)], plan.count()));
}

/// Writes dx[i] = f(i, o) for every input element i and the output element o it reduces into.
template <class T, class F>
void reduce_backward(const ReducePlan& plan, T* dx, OpReq req, F f) {
  if (req == OpReq::Null) return;
  const int64_t rows = plan.rows(), n = plan.inner();
  plan.for_each_block([&](int64_t in_off, int64_t out_off) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = in_off + r * n + i;
        assign(dx[k], req, f(k, out_off + i));
      }
  });
}

}  // namespace braid::op::detail
