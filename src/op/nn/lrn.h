#pragma once
// Internal: LRN's parameter and channel windows, shared by its CPU (lrn.cc) and GPU (lrn.cu)
// kernels.
#include <algorithm>
#include <cstdint>

#include "braid/base/shape.h"
#include "op/math/host_device.h"

namespace braid::op::detail {

struct LrnParam {
  double alpha = 1e-4, beta = 0.75, knorm = 2;
  int64_t nsize = 0;
};

// The data's (batch, channels, plane) layout and channel c's window [c - pad, c - pad + nsize - 1]
// within [0, channels).
struct LrnWindow {
  int64_t batch, channels, plane, pad, nsize;
  LrnWindow(const Shape& s, int64_t nsize)
      : batch(s[0]),
        channels(s[1]),
        plane(s.size() / std::max<int64_t>(batch * channels, 1)),
        pad(nsize / 2),
        nsize(nsize) {}
  BRAID_HOST_DEVICE int64_t first(int64_t c) const { return c - pad > 0 ? c - pad : 0; }
  BRAID_HOST_DEVICE int64_t last(int64_t c) const {
    return c - pad + nsize - 1 < channels - 1 ? c - pad + nsize - 1 : channels - 1;
  }
  // The channels whose window holds channel i (the transposed window).
  BRAID_HOST_DEVICE int64_t first_holding(int64_t i) const { return i + pad - nsize + 1 > 0 ? i + pad - nsize + 1 : 0; }
  BRAID_HOST_DEVICE int64_t last_holding(int64_t i) const { return i + pad < channels - 1 ? i + pad : channels - 1; }
};

}  // namespace braid::op::detail
