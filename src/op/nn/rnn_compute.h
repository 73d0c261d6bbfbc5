#pragma once
// The fused RNN operator's forward and backward over whole sequences (rnn_compute.cc): per layer
// and direction, one matrix product for the inputs of every step, then per step one product
// with Wh and the element-wise cell (rnn_cells.h).
#include <cstdint>
#include <random>

#include "rnn_layout.h"

namespace braid::op::detail {

/// Forward tensors, time-major: x (T, N, I), weights packed as rnn_layout.h says, h0/c0 and
/// hy/cy (L·D, N, H), y (T, N, D·H). c0/cy: LSTM only; hy/cy may be null (no state outputs);
/// active: T·N flags (step t of sequence n is inside its length) or null.
template <class T>
struct RnnForwardIO {
  const T *x = nullptr, *w = nullptr, *h0 = nullptr, *c0 = nullptr;
  const uint8_t* active = nullptr;
  T *y = nullptr, *hy = nullptr, *cy = nullptr;
  T* reserve = nullptr;  // RnnDims::reserve_size() elements, read by backward
};

/// Backward tensors: the forward's inputs and saved state, the output gradients (dhy/dcy may be
/// null: zero), and the gradients to overwrite (dx may be null: not wanted).
template <class T>
struct RnnBackwardIO {
  const T *x = nullptr, *w = nullptr, *h0 = nullptr, *c0 = nullptr, *reserve = nullptr;
  const uint8_t* active = nullptr;
  const T *dy = nullptr, *dhy = nullptr, *dcy = nullptr;
  T *dx = nullptr, *dw = nullptr, *dh0 = nullptr, *dc0 = nullptr;
};

template <class T>
void rnn_forward(const RnnParam& p, const RnnDims& m, const RnnForwardIO<T>& io, bool train, std::mt19937_64* rng);

template <class T>
void rnn_backward(const RnnParam& p, const RnnDims& m, const RnnBackwardIO<T>& io);

}  // namespace braid::op::detail
