#pragma once
// Reduction kernels over a ReducePlan, with the reducers of op/math/reduce_functions.h.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "braid/op/tensor.h"
#include "op/math/reduce_functions.h"
#include "reduce_plan.h"

namespace braid::op::detail {

using math::is_nan;
using math::L1NormOp;
using math::L2NormOp;
using math::MaxOp;
using math::MeanOp;
using math::MinOp;
using math::NanProdOp;
using math::NanSumOp;
using math::ProdOp;
using math::ProdPartsOp;
using math::SumOp;
using math::wide_t;

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
  for (int64_t o = 0; o < plan.out_size(); ++o) assign(y[o], req, R::finish(acc[static_cast<size_t>(o)], plan.count()));
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
