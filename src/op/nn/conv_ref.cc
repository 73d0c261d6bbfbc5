// The reference convolution: im2col / col2im per image and group, and GEMM on OpenBLAS. It runs
// the float64 path and is what the oneDNN float32 path is tested against.
#include <algorithm>

#include "conv_kernels.h"
#include "op/common/gemm.h"
#include "op/common/req_util.h"

namespace braid::op::detail {
namespace {

// Visits every (column row r, output pixel p, input offset or -1 for padding) of the im2col
// matrix of one group image: rows are (channel, kd, kh, kw), columns output pixels.
template <class F>
void for_each_tap(const ConvGeom& g, F&& visit) {
  const int64_t cg = g.c / g.g, pixels = g.out_pixels();
  for (int64_t ch = 0; ch < cg; ++ch)
    for (int64_t kz = 0; kz < g.kd; ++kz)
      for (int64_t ki = 0; ki < g.kh; ++ki)
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const int64_t row = (((ch * g.kd + kz) * g.kh + ki) * g.kw + kj) * pixels;
          for (int64_t oz = 0; oz < g.od; ++oz) {
            const int64_t iz = oz * g.sd - g.pd + kz * g.dd;
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              const int64_t iy = oy * g.sh - g.ph + ki * g.dh;
              for (int64_t ox = 0; ox < g.ow; ++ox) {
                const int64_t ix = ox * g.sw - g.pw + kj * g.dw;
                const bool inside = iz >= 0 && iz < g.id && iy >= 0 && iy < g.ih && ix >= 0 && ix < g.iw;
                visit(row + (oz * g.oh + oy) * g.ow + ox, inside ? ((ch * g.id + iz) * g.ih + iy) * g.iw + ix : -1);
              }
            }
          }
        }
}

template <class T>
void im2col(const ConvGeom& g, const T* x, T* col) {
  for_each_tap(g, [&](int64_t r, int64_t i) { col[r] = i < 0 ? T(0) : x[i]; });
}

template <class T>
void col2im_add(const ConvGeom& g, const T* col, T* x) {
  for_each_tap(g, [&](int64_t r, int64_t i) {
    if (i >= 0) x[i] += col[r];
  });
}

struct GroupDims {
  int64_t cg, fg, k, pixels, x_group, y_group;  // k: rows of the column matrix
  explicit GroupDims(const ConvGeom& g)
      : cg(g.c / g.g),
        fg(g.f / g.g),
        k(cg * g.taps()),
        pixels(g.out_pixels()),
        x_group(cg * g.in_pixels()),
        y_group(fg * pixels) {}
};

}  // namespace

template <class T>
void add_bias(T* y, const T* bias, int64_t n, int64_t c, int64_t spatial) {
  for (int64_t i = 0; i < n * c; ++i) {
    const T b = bias[i % c];
    for (int64_t j = 0; j < spatial; ++j) y[i * spatial + j] += b;
  }
}

template <class T>
void bias_grad(const T* dy, int64_t n, int64_t c, int64_t spatial, T* db, OpReq req) {
  if (req == OpReq::Null) return;
  std::vector<T> sum(static_cast<size_t>(c), T(0));
  for (int64_t i = 0; i < n * c; ++i) {
    T s = 0;
    for (int64_t j = 0; j < spatial; ++j) s += dy[i * spatial + j];
    sum[static_cast<size_t>(i % c)] += s;
  }
  for (int64_t j = 0; j < c; ++j) assign(db[j], req, sum[static_cast<size_t>(j)]);
}

template <class T>
void ref_conv_forward(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y, OpReq req) {
  if (req == OpReq::Null) return;
  const GroupDims d(g);
  std::vector<T> col(static_cast<size_t>(d.k * d.pixels));
  const T beta = req == OpReq::Add ? T(1) : T(0);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.g; ++grp) {
      im2col(g, x + (n * g.g + grp) * d.x_group, col.data());
      gemm(false, false, d.fg, d.pixels, d.k, T(1), w + grp * d.fg * d.k, d.k, col.data(), d.pixels, beta,
           y + (n * g.g + grp) * d.y_group, d.pixels);
    }
  if (bias) add_bias(y, bias, g.n, g.f, d.pixels);
}

template <class T>
void ref_conv_backward_data(const ConvGeom& g, const T* dy, const T* w, T* dx, OpReq req) {
  if (req == OpReq::Null) return;
  const GroupDims d(g);
  if (req == OpReq::Write) std::fill(dx, dx + g.x_size(), T(0));
  std::vector<T> col(static_cast<size_t>(d.k * d.pixels));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.g; ++grp) {
      gemm(true, false, d.k, d.pixels, d.fg, T(1), w + grp * d.fg * d.k, d.k, dy + (n * g.g + grp) * d.y_group,
           d.pixels, T(0), col.data(), d.pixels);
      col2im_add(g, col.data(), dx + (n * g.g + grp) * d.x_group);
    }
}

template <class T>
void ref_conv_backward_weights(const ConvGeom& g, const T* x, const T* dy, T* dw, OpReq req_w, T* db, OpReq req_b) {
  const GroupDims d(g);
  if (req_w != OpReq::Null) {
    if (req_w == OpReq::Write) std::fill(dw, dw + g.w_size(), T(0));
    std::vector<T> col(static_cast<size_t>(d.k * d.pixels));
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t grp = 0; grp < g.g; ++grp) {
        im2col(g, x + (n * g.g + grp) * d.x_group, col.data());
        gemm(false, true, d.fg, d.k, d.pixels, T(1), dy + (n * g.g + grp) * d.y_group, d.pixels, col.data(), d.pixels,
             T(1), dw + grp * d.fg * d.k, d.k);
      }
  }
  if (db) bias_grad(dy, g.n, g.f, d.pixels, db, req_b);
}

template <class T>
void conv_forward(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y, OpReq req) {
  if constexpr (std::is_same_v<T, float>) {
    dnnl_conv_forward(g, x, w, bias, y, req);  // the relu, if any, as a post-op
  } else if (g.relu) {
    ConvGeom plain = g;
    plain.relu = false;
    write_with_req(y, g.y_size(), req, [&](T* out) {
      conv_forward(plain, x, w, bias, out, OpReq::Write);
      for (int64_t i = 0; i < g.y_size(); ++i) out[i] = out[i] > T(0) ? out[i] : T(0);
    });
  } else if (g.channels_last)
    channels_last_ref_conv_forward(g, x, w, bias, y, req);
  else
    ref_conv_forward(g, x, w, bias, y, req);
}

template <class T>
void conv_backward_data(const ConvGeom& g, const T* dy, const T* w, T* dx, OpReq req) {
  if constexpr (std::is_same_v<T, float>)
    dnnl_conv_backward_data(g, dy, w, dx, req);
  else if (g.channels_last)
    channels_last_ref_conv_backward_data(g, dy, w, dx, req);
  else
    ref_conv_backward_data(g, dy, w, dx, req);
}

template <class T>
void conv_backward_weights(const ConvGeom& g, const T* x, const T* dy, T* dw, OpReq req_w, T* db, OpReq req_b) {
  if constexpr (std::is_same_v<T, float>)
    dnnl_conv_backward_weights(g, x, dy, dw, req_w, db, req_b);
  else if (g.channels_last)
    channels_last_ref_conv_backward_weights(g, x, dy, dw, req_w, db, req_b);
  else
    ref_conv_backward_weights(g, x, dy, dw, req_w, db, req_b);
}

#define BRAID_INSTANTIATE_CONV(T)                                                                     \
  template void add_bias(T*, const T*, int64_t, int64_t, int64_t);                                    \
  template void bias_grad(const T*, int64_t, int64_t, int64_t, T*, OpReq);                            \
  template void ref_conv_forward(const ConvGeom&, const T*, const T*, const T*, T*, OpReq);           \
  template void ref_conv_backward_data(const ConvGeom&, const T*, const T*, T*, OpReq);               \
  template void ref_conv_backward_weights(const ConvGeom&, const T*, const T*, T*, OpReq, T*, OpReq); \
  template void conv_forward(const ConvGeom&, const T*, const T*, const T*, T*, OpReq);               \
  template void conv_backward_data(const ConvGeom&, const T*, const T*, T*, OpReq);                   \
  template void conv_backward_weights(const ConvGeom&, const T*, const T*, T*, OpReq, T*, OpReq);
BRAID_INSTANTIATE_CONV(float)
BRAID_INSTANTIATE_CONV(double)
#undef BRAID_INSTANTIATE_CONV

}  // namespace braid::op::detail
