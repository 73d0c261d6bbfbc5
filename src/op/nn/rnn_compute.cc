#include "rnn_compute.h"

#include <algorithm>
#include <vector>

#include "nn_util.h"
#include "op/common/gemm.h"
#include "rnn_cells.h"

namespace braid::op::detail {
namespace {

CellClip cell_clip(const RnnParam& p) {
  CellClip c;
  c.on = p.clip_min.has_value() && p.clip_max.has_value();
  if (c.on) c.lo = *p.clip_min, c.hi = *p.clip_max;
  c.nan_to_min = p.clip_nan;
  return c;
}

/// Where one (layer, direction) keeps its saved state, and the step order of its direction.
template <class T>
struct RnnTrack {
  T *gates, *hidden, *extra;  // extra: LSTM's cells or GRU's n-gate products
  T* unprojected;             // with a projection: o·tanh(c) of every step
  int64_t l, d;
  const RnnDims* m;

  RnnTrack(const RnnDims& dims, T* reserve, int64_t layer, int64_t dir)
      : gates(reserve + dims.gates_offset(layer, dir)),
        hidden(reserve + dims.hidden_offset(layer, dir)),
        extra(reserve + dims.extra_offset(layer, dir)),
        unprojected(reserve + dims.unprojected_offset(layer, dir)),
        l(layer),
        d(dir),
        m(&dims) {}

  /// The time index of the s-th step this direction takes, and of the step before it.
  int64_t time(int64_t s) const { return d == 0 ? s : m->T - 1 - s; }
  int64_t prev_time(int64_t s) const { return d == 0 ? s - 1 : m->T - s; }

  RnnStep<T> step(const RnnParam& p, const T* w, const T* h0, const T* c0, const uint8_t* active, int64_t s) const {
    const RnnDims& k = *m;
    const int64_t t = time(s), tp = prev_time(s), nh = k.N * k.H, nr = k.N * k.R;
    RnnStep<T> st;
    st.N = k.N, st.H = k.H, st.R = k.R, st.mode = p.mode, st.clip = cell_clip(p);
    st.active = active ? active + t * k.N : nullptr;
    st.gates = gates + t * k.N * k.gh();
    st.bx = w + k.bx_offset(l, d), st.bh = w + k.bh_offset(l, d);
    st.h_prev = s == 0 ? h0 + k.track(l, d) * nr : hidden + tp * nr;
    st.h = k.projected() ? unprojected + t * nh : hidden + t * nr;
    if (k.cell) {
      st.c_prev = s == 0 ? c0 + k.track(l, d) * nh : extra + tp * nh;
      st.c = extra + t * nh;
    }
    if (k.gru) st.extra = extra + t * nh;
    return st;
  }
};

/// Scales of inverted dropout (0 or 1 / (1 - p)) written to mask and applied to x.
template <class T>
void apply_dropout(double p, bool train, std::mt19937_64* rng, T* x, T* mask, int64_t n) {
  const T keep = static_cast<T>(1 / (1 - p));
  for (int64_t i = 0; i < n; ++i) {
    mask[i] = !train ? T(1) : uniform01(*rng) < p ? T(0) : keep;
    x[i] *= mask[i];
  }
}

template <class T>
void add_column_sums(const T* a, int64_t rows, int64_t cols, T* sums) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) sums[j] += a[r * cols + j];
}

// With a projection, after the step computed o·tanh(c) into st.h: the step's hidden state
// h = (o·tanh c)·Wrᵀ (N × P), except that a row whose sequence has ended keeps h_prev; the layer
// output y is h, zeros for such rows.
template <class T>
void project_step(const RnnDims& m, const RnnStep<T>& st, const T* wr, T* h, T* y, int64_t ldy) {
  gemm<T>(false, true, m.N, m.P, m.H, T(1), st.h, m.H, wr, m.H, T(0), h, m.P);
  for (int64_t n = 0; n < m.N; ++n) {
    const bool ended = st.active && !st.active[n];
    if (ended) std::copy_n(st.h_prev + n * m.P, m.P, h + n * m.P);
    for (int64_t j = 0; j < m.P; ++j) y[n * ldy + j] = ended ? T(0) : h[n * m.P + j];
  }
}

}  // namespace

template <class T>
void rnn_forward(const RnnParam& p, const RnnDims& m, const RnnForwardIO<T>& io, bool train, std::mt19937_64* rng) {
  const int64_t TN = m.T * m.N, GH = m.gh(), nh = m.N * m.H, nr = m.N * m.R, DR = m.D * m.R;
  std::vector<T> gh(static_cast<size_t>(m.N * GH));
  for (int64_t l = 0; l < m.L; ++l) {
    const int64_t in = m.layer_input(l);
    const T* x = l == 0 ? io.x : io.reserve + m.layer_x_offset(l);
    T* y = l == m.L - 1 ? io.y : io.reserve + m.layer_x_offset(l + 1);
    for (int64_t d = 0; d < m.D; ++d) {
      const RnnTrack<T> tr(m, io.reserve, l, d);
      const T* wh = io.w + m.wh_offset(l, d);
      gemm<T>(false, true, TN, GH, in, T(1), x, in, io.w + m.wx_offset(l, d), in, T(0), tr.gates, GH);
      for (int64_t s = 0; s < m.T; ++s) {
        RnnStep<T> st = tr.step(p, io.w, io.h0, io.c0, io.active, s);
        gemm<T>(false, true, m.N, GH, m.R, T(1), st.h_prev, m.R, wh, m.R, T(0), gh.data(), GH);
        st.gh = gh.data();
        T* yt = y + tr.time(s) * m.N * DR + d * m.R;
        if (!m.projected()) {
          st.y = yt, st.ldy = DR;
          rnn_step_forward(st);
          continue;
        }
        st.y = st.h, st.ldy = m.H;  // o·tanh(c), projected next
        rnn_step_forward(st);
        project_step(m, st, io.w + m.wr_offset(l, d), tr.hidden + tr.time(s) * nr, yt, DR);
      }
      const int64_t last = tr.time(m.T - 1), off_h = m.track(l, d) * nr, off_c = m.track(l, d) * nh;
      if (io.hy) std::copy_n(m.T == 0 ? io.h0 + off_h : tr.hidden + last * nr, nr, io.hy + off_h);
      if (io.cy) std::copy_n(m.T == 0 ? io.c0 + off_c : tr.extra + last * nh, nh, io.cy + off_c);
    }
    if (l < m.L - 1 && m.dropout) apply_dropout(p.p, train, rng, y, io.reserve + m.mask_offset(l + 1), TN * DR);
  }
}

template <class T>
void rnn_backward(const RnnParam& p, const RnnDims& m, const RnnBackwardIO<T>& io) {
  const int64_t TN = m.T * m.N, GH = m.gh(), H = m.H, R = m.R, nh = m.N * H, nr = m.N * R, DR = m.D * R;
  T* reserve = const_cast<T*>(io.reserve);  // Track's pointers are mutable; backward only reads
  std::fill_n(io.dw, m.param_size(), T(0));
  std::vector<T> dgx(static_cast<size_t>(TN * GH)), dgh(m.gru ? dgx.size() : 0);
  // dh, direct: gradients of h (width R); with a projection dh_cell is that of o·tanh(c) (width H)
  // and cell_direct what the step writes aside for it.
  std::vector<T> dh(static_cast<size_t>(nr)), direct(dh.size()), dc(static_cast<size_t>(nh)), dy_next, dx_layer;
  std::vector<T> dh_cell(m.projected() ? dc.size() : 0), cell_direct(dh_cell.size());
  const T* dy = io.dy;
  for (int64_t l = m.L - 1; l >= 0; --l) {
    const int64_t in = m.layer_input(l);
    const T* x = l == 0 ? io.x : io.reserve + m.layer_x_offset(l);
    T* dx = io.dx;
    if (l > 0) {
      dx_layer.assign(static_cast<size_t>(TN * in), T(0));
      dx = dx_layer.data();
    } else if (dx) {
      std::fill_n(dx, TN * in, T(0));
    }
    for (int64_t d = 0; d < m.D; ++d) {
      const RnnTrack<T> tr(m, reserve, l, d);
      const int64_t off_h = m.track(l, d) * nr, off_c = m.track(l, d) * nh;
      const T *wx = io.w + m.wx_offset(l, d), *wh = io.w + m.wh_offset(l, d), *wr = io.w + m.wr_offset(l, d);
      T* dgh_all = m.gru ? dgh.data() : dgx.data();
      if (io.dhy)
        std::copy_n(io.dhy + off_h, nr, dh.begin());
      else
        std::fill(dh.begin(), dh.end(), T(0));
      if (m.cell && io.dcy)
        std::copy_n(io.dcy + off_c, nh, dc.begin());
      else
        std::fill(dc.begin(), dc.end(), T(0));
      for (int64_t s = m.T - 1; s >= 0; --s) {
        const RnnStep<T> st = tr.step(p, io.w, io.h0, io.c0, io.active, s);
        const int64_t t = tr.time(s);
        const T* dyt = dy + t * m.N * DR + d * R;
        for (int64_t n = 0; n < m.N; ++n) {
          if (st.active && !st.active[n]) continue;
          for (int64_t j = 0; j < R; ++j) dh[static_cast<size_t>(n * R + j)] += dyt[n * DR + j];
        }
        RnnStepGrad<T> g;
        g.dc = dc.data();
        g.dgx = dgx.data() + t * m.N * GH, g.dgh = dgh_all + t * m.N * GH;
        if (m.projected()) {
          // Through h = (o·tanh c)·Wrᵀ: the cell's gradient dh·Wr, and dWr += dhᵀ·(o·tanh c) (zero
          // rows where the sequence has ended); an ended row carries dh to h_prev unchanged.
          gemm<T>(false, false, m.N, H, m.P, T(1), dh.data(), m.P, wr, H, T(0), dh_cell.data(), H);
          gemm<T>(true, false, m.P, H, m.N, T(1), dh.data(), m.P, st.h, H, T(1), io.dw + m.wr_offset(l, d), H);
          g.dh = dh_cell.data(), g.dh_direct = cell_direct.data();
          for (int64_t n = 0; n < m.N; ++n) {
            const bool ended = st.active && !st.active[n];
            for (int64_t j = 0; j < R; ++j) direct[size_t(n * R + j)] = ended ? dh[size_t(n * R + j)] : T(0);
          }
        } else {
          g.dh = dh.data(), g.dh_direct = direct.data();
        }
        rnn_step_backward(st, g);
        gemm<T>(false, false, m.N, R, GH, T(1), g.dgh, GH, wh, R, T(1), direct.data(), R);
        dh.swap(direct);
      }
      if (io.dh0) std::copy(dh.begin(), dh.end(), io.dh0 + off_h);
      if (io.dc0) std::copy(dc.begin(), dc.end(), io.dc0 + off_c);
      gemm<T>(true, false, GH, in, TN, T(1), dgx.data(), GH, x, in, T(1), io.dw + m.wx_offset(l, d), in);
      // dWh = Σ_t dgh(t)ᵀ·h_prev(t): h_prev is the hidden state one step earlier in this
      // direction's order, h0 for its first step.
      T* dwh = io.dw + m.wh_offset(l, d);
      if (m.T > 0) {
        const int64_t first = tr.time(0);
        const T* later_dgh = d == 0 ? dgh_all + m.N * GH : dgh_all;
        const T* earlier_h = d == 0 ? tr.hidden : tr.hidden + nr;
        gemm<T>(true, false, GH, R, (m.T - 1) * m.N, T(1), later_dgh, GH, earlier_h, R, T(1), dwh, R);
        gemm<T>(true, false, GH, R, m.N, T(1), dgh_all + first * m.N * GH, GH, io.h0 + off_h, R, T(1), dwh, R);
      }
      add_column_sums(dgx.data(), TN, GH, io.dw + m.bx_offset(l, d));
      add_column_sums(dgh_all, TN, GH, io.dw + m.bh_offset(l, d));
      if (dx) gemm<T>(false, false, TN, in, GH, T(1), dgx.data(), GH, wx, in, T(1), dx, in);
    }
    if (l > 0) {
      if (m.dropout) {
        const T* mask = io.reserve + m.mask_offset(l);
        for (int64_t i = 0; i < TN * in; ++i) dx_layer[static_cast<size_t>(i)] *= mask[i];
      }
      dy_next.swap(dx_layer);
      dy = dy_next.data();
    }
  }
}

template void rnn_forward<float>(const RnnParam&, const RnnDims&, const RnnForwardIO<float>&, bool, std::mt19937_64*);
template void rnn_forward<double>(const RnnParam&, const RnnDims&, const RnnForwardIO<double>&, bool, std::mt19937_64*);
template void rnn_backward<float>(const RnnParam&, const RnnDims&, const RnnBackwardIO<float>&);
template void rnn_backward<double>(const RnnParam&, const RnnDims&, const RnnBackwardIO<double>&);

}  // namespace braid::op::detail
