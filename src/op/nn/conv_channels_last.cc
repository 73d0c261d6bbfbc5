// The reference convolution on channels-last (NHWC) data: the arguments are copied to channels
// first, the reference runs, and the results are copied back. Only the float64 path takes it;
// float32 runs NHWC natively on oneDNN.
#include <vector>

#include "conv_kernels.h"
#include "op/common/req_util.h"

namespace braid::op::detail {
namespace {

template <class T>
std::vector<T> channels_first(const T* src, int64_t n, int64_t c, int64_t spatial) {
  std::vector<T> out(static_cast<size_t>(n * c * spatial));
  to_channels_first(src, out.data(), n, c, spatial);
  return out;
}

// The geometry on the channels-first copies.
ConvGeom first(ConvGeom g) {
  g.channels_last = false;
  return g;
}

}  // namespace

template <class T>
void to_channels_first(const T* src, T* dst, int64_t n, int64_t c, int64_t spatial) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t s = 0; s < spatial; ++s)
      for (int64_t k = 0; k < c; ++k) dst[(i * c + k) * spatial + s] = src[(i * spatial + s) * c + k];
}

template <class T>
void to_channels_last(const T* src, T* dst, int64_t n, int64_t c, int64_t spatial, OpReq req) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t s = 0; s < spatial; ++s)
      for (int64_t k = 0; k < c; ++k) assign(dst[(i * spatial + s) * c + k], req, src[(i * c + k) * spatial + s]);
}

template <class T>
void channels_last_ref_conv_forward(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y, OpReq req) {
  if (req == OpReq::Null) return;
  const int64_t taps = g.taps();
  auto xf = channels_first(x, g.n, g.c, g.in_pixels()), wf = channels_first(w, g.f, g.c / g.g, taps);
  std::vector<T> yf(static_cast<size_t>(g.y_size()));
  ref_conv_forward(first(g), xf.data(), wf.data(), bias, yf.data(), OpReq::Write);
  to_channels_last(yf.data(), y, g.n, g.f, g.out_pixels(), req);
}

template <class T>
void channels_last_ref_conv_backward_data(const ConvGeom& g, const T* dy, const T* w, T* dx, OpReq req) {
  if (req == OpReq::Null) return;
  auto dyf = channels_first(dy, g.n, g.f, g.out_pixels()), wf = channels_first(w, g.f, g.c / g.g, g.taps());
  std::vector<T> dxf(static_cast<size_t>(g.x_size()));
  ref_conv_backward_data(first(g), dyf.data(), wf.data(), dxf.data(), OpReq::Write);
  to_channels_last(dxf.data(), dx, g.n, g.c, g.in_pixels(), req);
}

template <class T>
void channels_last_ref_conv_backward_weights(const ConvGeom& g, const T* x, const T* dy, T* dw, OpReq req_w, T* db,
                                             OpReq req_b) {
  auto xf = channels_first(x, g.n, g.c, g.in_pixels()), dyf = channels_first(dy, g.n, g.f, g.out_pixels());
  std::vector<T> dwf(static_cast<size_t>(g.w_size()));
  ref_conv_backward_weights(first(g), xf.data(), dyf.data(), dwf.data(), req_w == OpReq::Null ? req_w : OpReq::Write,
                            db, req_b);
  if (req_w != OpReq::Null) to_channels_last(dwf.data(), dw, g.f, g.c / g.g, g.taps(), req_w);
}

#define BRAID_INSTANTIATE_CHANNELS_LAST(T)                                                                \
  template void to_channels_first(const T*, T*, int64_t, int64_t, int64_t);                               \
  template void to_channels_last(const T*, T*, int64_t, int64_t, int64_t, OpReq);                         \
  template void channels_last_ref_conv_forward(const ConvGeom&, const T*, const T*, const T*, T*, OpReq); \
  template void channels_last_ref_conv_backward_data(const ConvGeom&, const T*, const T*, T*, OpReq);     \
  template void channels_last_ref_conv_backward_weights(const ConvGeom&, const T*, const T*, T*, OpReq, T*, OpReq);
BRAID_INSTANTIATE_CHANNELS_LAST(float)
BRAID_INSTANTIATE_CHANNELS_LAST(double)
#undef BRAID_INSTANTIATE_CHANNELS_LAST

}  // namespace braid::op::detail
