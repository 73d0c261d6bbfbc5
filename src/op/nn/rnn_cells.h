#pragma once
// One time step of the fused RNN operator, element by element, after the matrix products:
// the gates of N sequences from x·Wxᵀ and h·Whᵀ, and in backward the gradients of the gates'
// pre-activations. Rows whose sequence has ended (sequence_length) carry their state unchanged
// and output zeros.
#include <cmath>
#include <cstdint>

#include "rnn_layout.h"

namespace braid::op::detail {

template <class T>
T rnn_sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

/// LSTM's state clipping (lstm_state_clip_min/max): a NaN becomes the lower bound unless
/// lstm_state_clip_nan is off, as cuDNN's clipping does.
struct CellClip {
  bool on = false, nan_to_min = false;
  double lo = 0, hi = 0;
  template <class T>
  T operator()(T c) const {
    if (!on) return c;
    if (std::isnan(c)) return nan_to_min ? static_cast<T>(lo) : c;
    return std::fmin(std::fmax(c, static_cast<T>(lo)), static_cast<T>(hi));
  }
  template <class T>
  bool clipped(T c) const {
    return on && (c <= static_cast<T>(lo) || c >= static_cast<T>(hi));
  }
};

/// Pointers of one step of one (layer, direction), rows of width H (G·H for gates).
template <class T>
struct RnnStep {
  int64_t N = 0, H = 0;
  int64_t R = 0;  // h_prev's width: H, or with a projection P (then h is o·tanh(c), projected after the step)
  RnnMode mode = RnnMode::kLstm;
  CellClip clip;
  const uint8_t* active = nullptr;  // per row; null: every row is active
  T* gates = nullptr;               // in: x·Wxᵀ; out: the activated gates
  const T* gh = nullptr;            // h_prev·Whᵀ, without bias
  const T *bx = nullptr, *bh = nullptr;
  const T *h_prev = nullptr, *c_prev = nullptr;
  T *h = nullptr, *c = nullptr, *extra = nullptr;  // extra: GRU's Wh·h + bh of the n gate
  T* y = nullptr;                                  // the layer output at this step, rows ldy apart
  int64_t ldy = 0;
};

template <class T>
void rnn_step_forward(const RnnStep<T>& s) {
  const int64_t H = s.H, gh = (s.mode == RnnMode::kLstm ? 4 : s.mode == RnnMode::kGru ? 3 : 1) * H;
#pragma omp parallel for schedule(static) if (s.N * gh > (1 << 14))
  for (int64_t n = 0; n < s.N; ++n) {
    T* g = s.gates + n * gh;
    const T* r = s.gh + n * gh;
    const T* hp = s.h_prev + n * H;
    T* h = s.h + n * H;
    T* y = s.y + n * s.ldy;
    if (s.active && !s.active[n]) {
      for (int64_t j = 0; j < gh; ++j) g[j] = T(0);
      for (int64_t j = 0; j < H; ++j) {
        h[j] = s.R == H ? hp[j] : T(0);
        y[j] = T(0);
        if (s.c) s.c[n * H + j] = s.c_prev[n * H + j];
        if (s.extra) s.extra[n * H + j] = T(0);
      }
      continue;
    }
    auto pre = [&](int64_t j) { return g[j] + s.bx[j] + r[j] + s.bh[j]; };
    for (int64_t j = 0; j < H; ++j) {
      T out;
      if (s.mode == RnnMode::kLstm) {
        const T i = rnn_sigmoid(pre(j)), f = rnn_sigmoid(pre(H + j)), u = std::tanh(pre(2 * H + j)),
                o = rnn_sigmoid(pre(3 * H + j));
        const T c = s.clip(f * s.c_prev[n * H + j] + i * u);
        g[j] = i, g[H + j] = f, g[2 * H + j] = u, g[3 * H + j] = o;
        s.c[n * H + j] = c;
        out = o * std::tanh(c);
      } else if (s.mode == RnnMode::kGru) {
        const T rg = rnn_sigmoid(pre(j)), z = rnn_sigmoid(pre(H + j));
        const T hn = r[2 * H + j] + s.bh[2 * H + j];
        const T u = std::tanh(g[2 * H + j] + s.bx[2 * H + j] + rg * hn);
        g[j] = rg, g[H + j] = z, g[2 * H + j] = u;
        s.extra[n * H + j] = hn;
        out = (T(1) - z) * u + z * hp[j];
      } else {
        const T a = pre(j);
        out = s.mode == RnnMode::kRnnTanh ? std::tanh(a) : (a > T(0) ? a : T(0));
        g[j] = out;
      }
      h[j] = out;
      y[j] = out;
    }
  }
}

/// Backward of one step: from dh (the gradient of this step's h) and dc (of its cell) gives the
/// gradients of the gates' pre-activations, through x (dgx) and through h_prev (dgh: differs
/// from dgx in GRU's n gate only), the part of h_prev's gradient not through Wh (dh_direct), and
/// dc becomes c_prev's gradient.
template <class T>
struct RnnStepGrad {
  const T* dh = nullptr;
  T* dc = nullptr;
  T *dgx = nullptr, *dgh = nullptr, *dh_direct = nullptr;
};

template <class T>
void rnn_step_backward(const RnnStep<T>& s, const RnnStepGrad<T>& d) {
  const int64_t H = s.H, gh = (s.mode == RnnMode::kLstm ? 4 : s.mode == RnnMode::kGru ? 3 : 1) * H;
#pragma omp parallel for schedule(static) if (s.N * gh > (1 << 14))
  for (int64_t n = 0; n < s.N; ++n) {
    const T* g = s.gates + n * gh;
    const T* dh = d.dh + n * H;
    T* dgx = d.dgx + n * gh;
    T* dgh = d.dgh + n * gh;
    T* direct = d.dh_direct + n * H;
    if (s.active && !s.active[n]) {
      for (int64_t j = 0; j < gh; ++j) dgx[j] = dgh[j] = T(0);
      for (int64_t j = 0; j < H; ++j) direct[j] = dh[j];
      continue;
    }
    for (int64_t j = 0; j < H; ++j) {
      if (s.mode == RnnMode::kLstm) {
        const T i = g[j], f = g[H + j], u = g[2 * H + j], o = g[3 * H + j];
        const T c = s.c[n * H + j], tc = std::tanh(c);
        T dc = d.dc[n * H + j] + dh[j] * o * (T(1) - tc * tc);
        if (s.clip.clipped(c)) dc = T(0);
        dgx[j] = dc * u * i * (T(1) - i);
        dgx[H + j] = dc * s.c_prev[n * H + j] * f * (T(1) - f);
        dgx[2 * H + j] = dc * i * (T(1) - u * u);
        dgx[3 * H + j] = dh[j] * tc * o * (T(1) - o);
        d.dc[n * H + j] = dc * f;
        direct[j] = T(0);
      } else if (s.mode == RnnMode::kGru) {
        const T rg = g[j], z = g[H + j], u = g[2 * H + j];
        const T du = dh[j] * (T(1) - z) * (T(1) - u * u);
        dgx[j] = dgh[j] = du * s.extra[n * H + j] * rg * (T(1) - rg);
        dgx[H + j] = dgh[H + j] = dh[j] * (s.h_prev[n * H + j] - u) * z * (T(1) - z);
        dgx[2 * H + j] = du;
        dgh[2 * H + j] = du * rg;
        direct[j] = dh[j] * z;
      } else {
        const T h = g[j];
        dgx[j] = dh[j] * (s.mode == RnnMode::kRnnTanh ? T(1) - h * h : T(h > T(0)));
        direct[j] = T(0);
      }
    }
  }
}

}  // namespace braid::op::detail
