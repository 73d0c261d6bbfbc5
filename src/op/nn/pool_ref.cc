// The reference pooling: direct loops over each window, MXNet's conventions. It runs the float64
// path and is what the oneDNN float32 path is tested against.
#include <algorithm>

#include "pool_kernels.h"

namespace braid::op::detail {
namespace {

struct Window {
  int64_t h0, h1, w0, w1;  // the part inside the input
  int64_t size;            // the divisor of an average
};

Window window(const PoolGeom& g, int64_t oy, int64_t ox) {
  const int64_t hs = oy * g.sh - g.ph, ws = ox * g.sw - g.pw;
  Window w{std::max<int64_t>(hs, 0), std::min(hs + g.kh, g.ih), std::max<int64_t>(ws, 0),
           std::min(ws + g.kw, g.iw), 0};
  w.size = g.include_pad ? (std::min(hs + g.kh, g.ih + g.ph) - hs) * (std::min(ws + g.kw, g.iw + g.pw) - ws)
                         : (w.h1 - w.h0) * (w.w1 - w.w0);
  return w;
}

// Calls visit(plane, output offset in plane, window) for every output pixel.
template <class F>
void for_each_window(const PoolGeom& g, F&& visit) {
  for (int64_t plane = 0; plane < g.n * g.c; ++plane)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) visit(plane, oy * g.ow + ox, window(g, oy, ox));
}

}  // namespace

template <class T>
void ref_pool_forward(const PoolGeom& g, const T* x, T* y, T* mask, OpReq req) {
  const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
  for_each_window(g, [&](int64_t plane, int64_t o, const Window& w) {
    const T* xp = x + plane * in_plane;
    T v = 0;
    if (g.type == PoolType::Max) {
      int64_t best = w.h0 * g.iw + w.w0;
      for (int64_t h = w.h0; h < w.h1; ++h)
        for (int64_t c = w.w0; c < w.w1; ++c)
          if (xp[h * g.iw + c] > xp[best]) best = h * g.iw + c;
      v = xp[best];
      mask[plane * out_plane + o] = static_cast<T>(best);
    } else {
      for (int64_t h = w.h0; h < w.h1; ++h)
        for (int64_t c = w.w0; c < w.w1; ++c) v += xp[h * g.iw + c];
      if (g.type == PoolType::Avg) v /= static_cast<T>(w.size);
    }
    assign(y[plane * out_plane + o], req, v);
  });
}

template <class T>
void ref_pool_backward(const PoolGeom& g, const T* dy, const T* mask, T* dx, OpReq req) {
  if (req == OpReq::Null) return;
  if (req == OpReq::Write) std::fill(dx, dx + g.x_size(), T(0));
  const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
  for_each_window(g, [&](int64_t plane, int64_t o, const Window& w) {
    T* dxp = dx + plane * in_plane;
    const T d = dy[plane * out_plane + o];
    if (g.type == PoolType::Max) {
      dxp[static_cast<int64_t>(mask[plane * out_plane + o])] += d;
      return;
    }
    const T share = g.type == PoolType::Avg ? d / static_cast<T>(w.size) : d;
    for (int64_t h = w.h0; h < w.h1; ++h)
      for (int64_t c = w.w0; c < w.w1; ++c) dxp[h * g.iw + c] += share;
  });
}

template <class T>
void pool_forward(const PoolGeom& g, const T* x, T* y, T* mask, OpReq req) {
  if constexpr (std::is_same_v<T, float>)
    if (dnnl_pool_supported(g)) return dnnl_pool_forward(g, x, y, mask, req);
  ref_pool_forward(g, x, y, mask, req);
}

template <class T>
void pool_backward(const PoolGeom& g, const T* dy, const T* mask, T* dx, OpReq req) {
  if constexpr (std::is_same_v<T, float>)
    if (dnnl_pool_supported(g)) return dnnl_pool_backward(g, dy, mask, dx, req);
  ref_pool_backward(g, dy, mask, dx, req);
}

#define BRAID_INSTANTIATE_POOL(T)                                                  \
  template void ref_pool_forward(const PoolGeom&, const T*, T*, T*, OpReq);        \
  template void ref_pool_backward(const PoolGeom&, const T*, const T*, T*, OpReq); \
  template void pool_forward(const PoolGeom&, const T*, T*, T*, OpReq);            \
  template void pool_backward(const PoolGeom&, const T*, const T*, T*, OpReq);
BRAID_INSTANTIATE_POOL(float)
BRAID_INSTANTIATE_POOL(double)
#undef BRAID_INSTANTIATE_POOL

}  // namespace braid::op::detail
