#pragma once
// The fused RNN operator (MXNet's `RNN`): its parameters, the layout of its packed weight vector
// and of the state it saves for backward.
//
// Packed weights, as MXNet and cuDNN order them: for every layer and, inside it, every direction,
// the input-to-hidden matrix Wx (gates·H × layer input) then the hidden-to-hidden matrix
// Wh (gates·H × R) and, for an LSTM with a projection, the projection Wr (P × H); after all
// matrices, the biases bx and bh (gates·H each) in the same order. Gates: LSTM i, f, g, o;
// GRU r, z, n; plain RNNs one. R, the width of the recurrent state h (and of the output per
// direction), is H, or P = projection_size for an LSTM with a projection (LSTMP: h = Wr·(o·tanh c)).
#include <cstdint>
#include <optional>

namespace braid::op::detail {

enum class RnnMode { kRnnRelu, kRnnTanh, kLstm, kGru };

struct RnnParam {
  int64_t state_size = 0, num_layers = 0;
  RnnMode mode = RnnMode::kLstm;
  bool bidirectional = false, state_outputs = false, use_sequence_length = false;
  double p = 0;  // dropout on the outputs of every layer but the last, in training
  std::optional<double> clip_min, clip_max;
  bool clip_nan = false;
  int64_t projection = 0;  // LSTM's projection_size; 0: none

  int64_t directions() const { return bidirectional ? 2 : 1; }
  int64_t gates() const { return mode == RnnMode::kLstm ? 4 : mode == RnnMode::kGru ? 3 : 1; }
  bool has_cell() const { return mode == RnnMode::kLstm; }
};

/// Sizes of one call, and where everything lives in the packed weights and the saved state.
struct RnnDims {
  int64_t T = 0, N = 0, I = 0;  // steps, sequences, input features
  int64_t H = 0, L = 0, D = 0, G = 0;
  int64_t P = 0, R = 0;  // projection_size (0: none); the recurrent state's width (P, else H)
  bool cell = false, gru = false, dropout = false;

  RnnDims(const RnnParam& p, int64_t steps, int64_t batch, int64_t input)
      : T(steps),
        N(batch),
        I(input),
        H(p.state_size),
        L(p.num_layers),
        D(p.directions()),
        G(p.gates()),
        P(p.projection),
        R(p.projection > 0 ? p.projection : p.state_size),
        cell(p.has_cell()),
        gru(p.mode == RnnMode::kGru),
        dropout(p.p > 0 && p.num_layers > 1) {}

  int64_t gh() const { return G * H; }
  int64_t layer_input(int64_t l) const { return l == 0 ? I : D * R; }
  bool projected() const { return P > 0; }
  int64_t track(int64_t l, int64_t d) const { return l * D + d; }  // a (layer, direction) pair

  // Packed weights.
  int64_t track_weights(int64_t l) const { return gh() * (layer_input(l) + R) + P * H; }
  int64_t wx_offset(int64_t l, int64_t d) const {
    int64_t off = 0;
    for (int64_t k = 0; k < l; ++k) off += D * track_weights(k);
    return off + d * track_weights(l);
  }
  int64_t wh_offset(int64_t l, int64_t d) const { return wx_offset(l, d) + gh() * layer_input(l); }
  int64_t wr_offset(int64_t l, int64_t d) const { return wh_offset(l, d) + gh() * R; }
  int64_t weights_size() const { return wx_offset(L, 0); }
  int64_t bx_offset(int64_t l, int64_t d) const { return weights_size() + 2 * gh() * track(l, d); }
  int64_t bh_offset(int64_t l, int64_t d) const { return bx_offset(l, d) + gh(); }
  int64_t param_size() const { return weights_size() + 2 * gh() * L * D; }

  // Saved state, per (layer, direction): the gates after their nonlinearity (T, N, G·H), the hidden
  // states (T, N, R), LSTM's cells (T, N, H), GRU's Wh·h + bh of its n gate (T, N, H), with a
  // projection o·tanh(c) before it (T, N, H); then per layer but the last its output as the next
  // layer's input (T, N, D·R) and, with dropout, the dropout scale of each element (T, N, D·R).
  int64_t per_track() const { return T * N * (gh() + R + (cell || gru ? H : 0) + (projected() ? H : 0)); }
  int64_t gates_offset(int64_t l, int64_t d) const { return per_track() * track(l, d); }
  int64_t hidden_offset(int64_t l, int64_t d) const { return gates_offset(l, d) + T * N * gh(); }
  int64_t extra_offset(int64_t l, int64_t d) const { return hidden_offset(l, d) + T * N * R; }
  int64_t unprojected_offset(int64_t l, int64_t d) const { return extra_offset(l, d) + T * N * H; }
  int64_t per_layer_io() const { return T * N * D * R * (dropout ? 2 : 1); }
  /// The input of layer l ≥ 1, and its dropout scales.
  int64_t layer_x_offset(int64_t l) const { return per_track() * L * D + per_layer_io() * (l - 1); }
  int64_t mask_offset(int64_t l) const { return layer_x_offset(l) + T * N * D * R; }
  int64_t reserve_size() const { return per_track() * L * D + per_layer_io() * (L - 1); }
};

}  // namespace braid::op::detail
