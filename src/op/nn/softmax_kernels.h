#pragma once
// Softmax kernels along the middle axis of an (outer, n, inner) view, shared by softmax,
// log_softmax, softmin, SoftmaxOutput and softmax_cross_entropy.
#include <algorithm>
#include <cmath>
#include <limits>

#include "eltwise_softmax_dnnl.h"
#include "softmax_spec.h"

namespace braid::op::detail {

/// Calls f(has_len) with std::true_type when `lengths` is given, std::false_type otherwise.
template <class F>
void dispatch_lengths(const int64_t* lengths, F&& f) {
  if (lengths)
    f(std::true_type{});
  else
    f(std::false_type{});
}

/// Whether oneDNN computes this softmax's forward pass: float32 in and out, along the last axis, plain softmax
/// or log-softmax.
template <class TI, class TO>
bool softmax_by_dnnl(const AxisSplit& s, const SoftmaxSpec& spec, const int64_t* lengths) {
  return std::is_same_v<TI, float> && std::is_same_v<TO, float> && s.inner == 1 && !lengths && spec.temperature == 1 &&
         !spec.negate;
}

/// y = softmax(x * factor) along the axis (or its log). With `lengths` (one per (outer, inner)
/// row, clamped to [0, n]) only the first length entries of a row take part; the rest become 0.
template <class TI, class TO>
void softmax_forward(const TI* x, TO* y, const AxisSplit& s, const SoftmaxSpec& spec,
                     const int64_t* lengths = nullptr) {
  if constexpr (std::is_same_v<TI, float> && std::is_same_v<TO, float>) {
    if (softmax_by_dnnl<TI, TO>(s, spec, lengths)) return dnnl_softmax_forward(spec.log, x, y, s);
  }
  using C = SoftmaxAcc<TI, TO>;
  const C f = static_cast<C>(spec.factor());
  dispatch_unit_inner(s.inner, [&](auto unit) {
    dispatch_lengths(lengths, [&](auto has_len) {
      const int64_t inner = unit ? 1 : s.inner, n = s.n;
      const auto ni = static_cast<size_t>(inner);
      std::vector<C> mx(ni), sum(ni);
      std::vector<int64_t> len(ni, n);
      for (int64_t o = 0; o < s.outer; ++o) {
        const TI* xo = x + o * n * inner;
        TO* yo = y + o * n * inner;
        if constexpr (decltype(has_len)::value)
          for (int64_t k = 0; k < inner; ++k) len[k] = std::clamp<int64_t>(lengths[o * inner + k], 0, n);
        auto live = [&](int64_t i, int64_t k) { return !decltype(has_len)::value || i < len[k]; };
        std::fill(mx.begin(), mx.end(), -std::numeric_limits<C>::infinity());
        std::fill(sum.begin(), sum.end(), C(0));
        for (int64_t i = 0; i < n; ++i)
          for (int64_t k = 0; k < inner; ++k)
            if (live(i, k)) mx[k] = std::max(mx[k], static_cast<C>(xo[i * inner + k]) * f);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t k = 0; k < inner; ++k) {
            const C e = live(i, k) ? std::exp(static_cast<C>(xo[i * inner + k]) * f - mx[k]) : C(0);
            sum[k] += e;
            if (!spec.log) yo[i * inner + k] = static_cast<TO>(e);
          }
        for (int64_t k = 0; k < inner; ++k) sum[k] = spec.log ? std::log(sum[k]) : C(1) / sum[k];
        for (int64_t i = 0; i < n; ++i)
          for (int64_t k = 0; k < inner; ++k) {
            const int64_t j = i * inner + k;
            if (!live(i, k))
              yo[j] = TO(0);
            else if (spec.log)
              yo[j] = static_cast<TO>(static_cast<C>(xo[j]) * f - mx[k] - sum[k]);
            else
              yo[j] = static_cast<TO>(yo[j] * sum[k]);
          }
      }
    });
  });
}

/// dx from y = softmax_forward(x) and the output gradient g; 0 past each row's length.
template <class TI, class TO>
void softmax_backward(const TO* y, const TO* g, TI* dx, const AxisSplit& s, const SoftmaxSpec& spec,
                      const int64_t* lengths = nullptr) {
  using C = SoftmaxAcc<TI, TO>;
  const C f = static_cast<C>(spec.factor());
  dispatch_unit_inner(s.inner, [&](auto unit) {
    dispatch_lengths(lengths, [&](auto has_len) {
      const int64_t inner = unit ? 1 : s.inner, n = s.n;
      const auto ni = static_cast<size_t>(inner);
      std::vector<C> sum(ni);
      std::vector<int64_t> len(ni, n);
      for (int64_t o = 0; o < s.outer; ++o) {
        const int64_t off = o * n * inner;
        if constexpr (decltype(has_len)::value)
          for (int64_t k = 0; k < inner; ++k) len[k] = std::clamp<int64_t>(lengths[o * inner + k], 0, n);
        auto live = [&](int64_t i, int64_t k) { return !decltype(has_len)::value || i < len[k]; };
        // softmax: dx = f * y * (g - sum(g * y)); log_softmax: dx = f * (g - exp(y) * sum(g)).
        std::fill(sum.begin(), sum.end(), C(0));
        for (int64_t i = 0; i < n; ++i)
          for (int64_t k = 0; k < inner; ++k) {
            const int64_t j = off + i * inner + k;
            if (live(i, k)) sum[k] += spec.log ? static_cast<C>(g[j]) : static_cast<C>(g[j]) * y[j];
          }
        for (int64_t i = 0; i < n; ++i)
          for (int64_t k = 0; k < inner; ++k) {
            const int64_t j = off + i * inner + k;
            C v = 0;
            if (live(i, k))
              v = spec.log ? f * (g[j] - std::exp(static_cast<C>(y[j])) * sum[k]) : f * y[j] * (g[j] - sum[k]);
            dx[j] = static_cast<TI>(v);
          }
      }
    });
  });
}

}  // namespace braid::op::detail
