#pragma once
// Internal: 2-D and 3-D pooling kernels (1-D pooling runs as 2-D with height 1). float32 average and sum
// pooling run on oneDNN; float64, float32 max pooling and the one average oneDNN computes
// differently run on direct loops.
#include <bit>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "braid/op/tensor.h"
#include "op/math/host_device.h"

namespace braid::op::detail {

enum class PoolType { Max, Avg, Sum, Lp };

/// Geometry of y (n, c, oh, ow) = pool(x (n, c, ih, iw)), or of y (n, oh, ow, c) = pool(x (n, ih,
/// iw, c)) when channels_last (layout NHWC). A volumetric (3-D) pooling has a depth axis before the
/// height (NCDHW, NDHWC); a 2-D one has depth 1. pad_r exceeds pad where the 'full' convention's
/// last window reaches past the padded input.
struct PoolGeom {
  PoolType type = PoolType::Max;
  bool include_pad = true;  // avg: divide by the window size clipped to the padded input
  bool channels_last = false;
  bool volumetric = false;
  int p = 2;  // Lp pooling: (sum of x^p)^(1/p), p 1, 2 or 3
  int64_t n = 0, c = 0, id = 1, ih = 1, iw = 1, od = 1, oh = 1, ow = 1;
  int64_t kd = 1, kh = 1, kw = 1, sd = 1, sh = 1, sw = 1, pd = 0, ph = 0, pw = 0, pd_r = 0, ph_r = 0, pw_r = 0;

  BRAID_HOST_DEVICE int64_t in_pixels() const { return id * ih * iw; }
  BRAID_HOST_DEVICE int64_t out_pixels() const { return od * oh * ow; }
  BRAID_HOST_DEVICE int64_t x_size() const { return n * c * in_pixels(); }
  BRAID_HOST_DEVICE int64_t y_size() const { return n * c * out_pixels(); }
  std::vector<int64_t> key() const {
    return {static_cast<int64_t>(type),
            p,
            include_pad,
            channels_last,
            volumetric,
            n,
            c,
            id,
            ih,
            iw,
            od,
            oh,
            ow,
            kd,
            kh,
            kw,
            sd,
            sh,
            sw,
            pd,
            ph,
            pw,
            pd_r,
            ph_r,
            pw_r};
  }
};

/// One axis of the window of output `o`: [begin, end) inside the input, and its extent counted by
/// an average including padding (MXNet counts padding, but not the part of a 'full' window past
/// it). Shared by the CPU and GPU kernels.
struct PoolSpan {
  int64_t begin, end, padded;
  BRAID_HOST_DEVICE int64_t inside() const { return end - begin; }
};

BRAID_HOST_DEVICE PoolSpan pool_span(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p) {
  const int64_t start = o * s - p;
  const int64_t end = start + k < in ? start + k : in;
  const int64_t padded_end = start + k < in + p ? start + k : in + p;
  return {start > 0 ? start : 0, end, padded_end - start};
}

/// The divisor of an average over the window with spans `d` (depth), `r` (rows) and `c` (columns).
BRAID_HOST_DEVICE int64_t pool_window_size(bool include_pad, const PoolSpan& d, const PoolSpan& r, const PoolSpan& c) {
  return include_pad ? d.padded * r.padded * c.padded : d.inside() * r.inside() * c.inside();
}

/// The same for a 2-D window.
BRAID_HOST_DEVICE int64_t pool_window_size(bool include_pad, const PoolSpan& r, const PoolSpan& c) {
  return pool_window_size(include_pad, PoolSpan{0, 1, 1}, r, c);
}

/// Max pooling's mask holds, per output, the offset of its maximum within the input plane: as the
/// value itself in float64, as int32 bits in float32 (a float holds integers exactly only to 2^24).
template <class T>
BRAID_HOST_DEVICE T encode_pool_index(int64_t i) {
  if constexpr (std::is_same_v<T, float>) {
#if defined(__CUDA_ARCH__)
    return __int_as_float(static_cast<int32_t>(i));
#else
    return std::bit_cast<float>(static_cast<int32_t>(i));
#endif
  } else {
    return static_cast<T>(i);
  }
}

template <class T>
BRAID_HOST_DEVICE int64_t decode_pool_index(T v) {
  if constexpr (std::is_same_v<T, float>) {
#if defined(__CUDA_ARCH__)
    return __float_as_int(v);
#else
    return std::bit_cast<int32_t>(v);
#endif
  } else {
    return static_cast<int64_t>(v);
  }
}

/// y = pool(x). Max pooling also fills `mask` (y's size and type) with where each maximum came
/// from (its offset within its (n, c) plane, (d * ih +) h * iw + w), for the backward; other types take a
/// null mask.
template <class T>
void pool_forward(const PoolGeom& g, const T* x, T* y, T* mask, OpReq req);
/// dx = gradient of the pooling given dy and the forward's mask. With `relu_y` (max pooling only:
/// y, when x was a relu's output), also the relu's gradient: outputs with y <= 0 pass nothing.
template <class T>
void pool_backward(const PoolGeom& g, const T* dy, const T* mask, const T* relu_y, T* dx, OpReq req);

/// Lp pooling's gradient, which reads the input and the output: dx += dy · (x / y)^(p - 1) over
/// each window, as MXNet computes it (infinite where a window's output is 0).
template <class T>
void lp_pool_backward(const PoolGeom& g, const T* x, const T* y, const T* dy, T* dx, OpReq req);

// The two implementations behind pool_*: direct loops (any T) and oneDNN (float, no max).
template <class T>
void direct_pool_forward(const PoolGeom& g, const T* x, T* y, T* mask, OpReq req);
template <class T>
void direct_pool_backward(const PoolGeom& g, const T* dy, const T* mask, const T* relu_y, T* dx, OpReq req);
/// Whether the oneDNN path takes this pooling: averages and sums, except averages including
/// padding whose window reaches past the padded input (MXNet shrinks the divisor there).
bool dnnl_pool_supported(const PoolGeom& g);
void dnnl_pool_forward(const PoolGeom& g, const float* x, float* y, OpReq req);
void dnnl_pool_backward(const PoolGeom& g, const float* dy, float* dx, OpReq req);

}  // namespace braid::op::detail
