// Pooling as direct loops over each window with MXNet's conventions, parallel over the (n, c)
// planes. It runs float64, float32 max pooling (oneDNN 2.6's max pooling measured 20-60x slower
// than these loops on an AVX2 host), and the average that oneDNN divides differently.
#include <smmintrin.h>
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "braid/base/error.h"
#include "pool_kernels.h"

namespace braid::op::detail {
namespace {

std::vector<PoolSpan> spans(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p) {
  std::vector<PoolSpan> v(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) v[static_cast<size_t>(o)] = pool_span(o, in, k, s, p);
  return v;
}

// The windows of every output pixel, the same for every plane: their spans along depth, rows and
// columns.
struct Windows {
  std::vector<PoolSpan> depths, rows, cols;
  explicit Windows(const PoolGeom& g)
      : depths(spans(g.od, g.id, g.kd, g.sd, g.pd)),
        rows(spans(g.oh, g.ih, g.kh, g.sh, g.ph)),
        cols(spans(g.ow, g.iw, g.kw, g.sw, g.pw)) {}

  // Runs visit(output, depth span, row span, column span) for every output pixel of a plane.
  template <class F>
  void for_each(const PoolGeom& g, F&& visit) const {
    for (int64_t oz = 0; oz < g.od; ++oz)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox)
          visit((oz * g.oh + oy) * g.ow + ox, depths[static_cast<size_t>(oz)], rows[static_cast<size_t>(oy)],
                cols[static_cast<size_t>(ox)]);
  }
};

// Runs visit(i) for the offset i within its plane of every input pixel in a window.
template <class F>
void for_each_in_window(const PoolGeom& g, const PoolSpan& d, const PoolSpan& r, const PoolSpan& c, F&& visit) {
  for (int64_t z = d.begin; z < d.end; ++z)
    for (int64_t h = r.begin; h < r.end; ++h)
      for (int64_t w = c.begin; w < c.end; ++w) visit((z * g.ih + h) * g.iw + w);
}

// Runs body(plane) for every (n, c) plane, in parallel when there is enough work.
template <class F>
void for_each_plane(const PoolGeom& g, F&& body) {
  const int64_t planes = g.n * g.c;
#pragma omp parallel for schedule(static) if (g.x_size() > (1 << 15))
  for (int64_t p = 0; p < planes; ++p) body(p);
}

// One (n, c) plane: its first input and output elements and the distance between neighbours
// within it (1 in NCHW, c in NHWC).
struct Plane {
  int64_t x, y, step;
};

Plane plane(const PoolGeom& g, int64_t p) {
  const int64_t in = g.in_pixels(), out = g.out_pixels();
  if (!g.channels_last) return {p * in, p * out, 1};
  const int64_t n = p / g.c, c = p % g.c;
  return {n * in * g.c + c, n * out * g.c + c, g.c};
}

template <class T>
T lp_power(T a, int p) {
  return p == 1 ? a : p == 2 ? a * a : a * a * a;
}

template <class T>
T lp_root(T a, int p) {
  return p == 1 ? a : p == 2 ? std::sqrt(a) : std::cbrt(a);
}

template <class T>
void forward_plane(const PoolGeom& g, const Windows& win, const T* x, T* y, T* mask, OpReq req, int64_t step) {
  win.for_each(g, [&](int64_t o, const PoolSpan& d, const PoolSpan& r, const PoolSpan& c) {
    if (g.type == PoolType::Max) {
      int64_t best = (d.begin * g.ih + r.begin) * g.iw + c.begin;
      T v = x[best * step];
      for_each_in_window(g, d, r, c, [&](int64_t i) {
        const bool more = x[i * step] > v;  // the first maximum wins, as in MXNet
        v = more ? x[i * step] : v;
        best = more ? i : best;
      });
      mask[o * step] = encode_pool_index<T>(best);
      assign(y[o * step], req, v);
      return;
    }
    T sum = 0;
    if (g.type == PoolType::Lp) {
      for_each_in_window(g, d, r, c, [&](int64_t i) { sum += lp_power(x[i * step], g.p); });
      assign(y[o * step], req, lp_root(sum, g.p));
      return;
    }
    for_each_in_window(g, d, r, c, [&](int64_t i) { sum += x[i * step]; });
    assign(y[o * step], req,
           g.type == PoolType::Avg ? sum / static_cast<T>(pool_window_size(g.include_pad, d, r, c)) : sum);
  });
}

// Stores the first maximum of four candidate vectors (the window's taps in order) to y as `req`
// says, and its tap's offset to mask; the scalar form does the same for one output.
void store_max_of_four(const __m128 (&candidates)[4], const __m128i (&offsets)[4], float* y, float* mask, OpReq req) {
  __m128 v = candidates[0];
  __m128 best = _mm_castsi128_ps(offsets[0]);
  for (int k = 1; k < 4; ++k) {
    const __m128 more = _mm_cmpgt_ps(candidates[k], v);
    v = _mm_blendv_ps(v, candidates[k], more);
    best = _mm_blendv_ps(best, _mm_castsi128_ps(offsets[k]), more);
  }
  _mm_storeu_ps(mask, best);
  if (req == OpReq::Write)
    _mm_storeu_ps(y, v);
  else if (req == OpReq::Add)
    _mm_storeu_ps(y, _mm_add_ps(_mm_loadu_ps(y), v));
}

void store_max_of_four(const float (&candidates)[4], const int32_t (&offsets)[4], float& y, float& mask, OpReq req) {
  int k = 0;
  for (int j = 1; j < 4; ++j) k = candidates[j] > candidates[k] ? j : k;
  mask = encode_pool_index<float>(offsets[k]);
  assign(y, req, candidates[k]);
}

// Max pooling with 2x2 windows at stride 2, all inside the input (LeNet's, VGG's), four outputs
// at a time on SSE4.1 (the compiler keeps the scalar loop's compares as branches, which random
// data mispredicts). Same first-maximum rule as forward_plane.
void max2x2_plane(const PoolGeom& g, const float* x, float* y, float* mask, OpReq req) {
  const __m128i lane = _mm_setr_epi32(0, 2, 4, 6);
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const float* r0 = x + 2 * oy * g.iw;
    const float* r1 = r0 + g.iw;
    const int32_t row0 = static_cast<int32_t>(2 * oy * g.iw), row1 = row0 + static_cast<int32_t>(g.iw);
    float* yrow = y + oy * g.ow;
    float* mrow = mask + oy * g.ow;
    int64_t ox = 0;
    for (; ox + 4 <= g.ow; ox += 4) {
      const int64_t c = 2 * ox;
      const __m128 t0 = _mm_loadu_ps(r0 + c), t1 = _mm_loadu_ps(r0 + c + 4);
      const __m128 u0 = _mm_loadu_ps(r1 + c), u1 = _mm_loadu_ps(r1 + c + 4);
      const __m128 candidates[4] = {
          _mm_shuffle_ps(t0, t1, _MM_SHUFFLE(2, 0, 2, 0)), _mm_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 1, 3, 1)),
          _mm_shuffle_ps(u0, u1, _MM_SHUFFLE(2, 0, 2, 0)), _mm_shuffle_ps(u0, u1, _MM_SHUFFLE(3, 1, 3, 1))};
      const __m128i first = _mm_add_epi32(lane, _mm_set1_epi32(row0 + static_cast<int32_t>(c)));
      const __m128i second = _mm_add_epi32(lane, _mm_set1_epi32(row1 + static_cast<int32_t>(c)));
      const __m128i offsets[4] = {first, _mm_add_epi32(first, _mm_set1_epi32(1)), second,
                                  _mm_add_epi32(second, _mm_set1_epi32(1))};
      store_max_of_four(candidates, offsets, yrow + ox, mrow + ox, req);
    }
    for (; ox < g.ow; ++ox) {
      const int32_t c = static_cast<int32_t>(2 * ox);
      const float candidates[4] = {r0[c], r0[c + 1], r1[c], r1[c + 1]};
      const int32_t offsets[4] = {row0 + c, row0 + c + 1, row1 + c, row1 + c + 1};
      store_max_of_four(candidates, offsets, yrow[ox], mrow[ox], req);
    }
  }
}

// Runs body(image, taps, pixel) for every output pixel of a 2x2/2 max pooling in NHWC, rows of
// pixels in parallel: image is the first input pixel of its image, taps the window's pixels
// within the image (h * iw + w, in window order), pixel the output pixel's index in the batch.
template <class F>
void for_each_window_nhwc(const PoolGeom& g, F&& body) {
  const int64_t rows = g.n * g.oh;
#pragma omp parallel for schedule(static) if (g.x_size() > (1 << 15))
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t n = row / g.oh, oy = row % g.oh;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      const int32_t top = static_cast<int32_t>(2 * oy * g.iw + 2 * ox), bottom = top + static_cast<int32_t>(g.iw);
      const int32_t taps[4] = {top, top + 1, bottom, bottom + 1};
      body(n * g.ih * g.iw, taps, row * g.ow + ox);
    }
  }
}

// The same in NHWC: four channels at a time, each output pixel's window being four channel
// vectors.
void max2x2_nhwc(const PoolGeom& g, const float* x, float* y, float* mask, OpReq req) {
  const int64_t ch = g.c;
  for_each_window_nhwc(g, [&](int64_t image, const int32_t(&taps)[4], int64_t pixel) {
    const __m128i tap_vectors[4] = {_mm_set1_epi32(taps[0]), _mm_set1_epi32(taps[1]), _mm_set1_epi32(taps[2]),
                                    _mm_set1_epi32(taps[3])};
    const float* in[4];
    for (int k = 0; k < 4; ++k) in[k] = x + (image + taps[k]) * ch;
    float* out = y + pixel * ch;
    float* where = mask + pixel * ch;
    int64_t c = 0;
    for (; c + 4 <= ch; c += 4) {
      const __m128 candidates[4] = {_mm_loadu_ps(in[0] + c), _mm_loadu_ps(in[1] + c), _mm_loadu_ps(in[2] + c),
                                    _mm_loadu_ps(in[3] + c)};
      store_max_of_four(candidates, tap_vectors, out + c, where + c, req);
    }
    for (; c < ch; ++c) {
      const float candidates[4] = {in[0][c], in[1][c], in[2][c], in[3][c]};
      store_max_of_four(candidates, taps, out[c], where[c], req);
    }
  });
}

bool is_max2x2(const PoolGeom& g) {
  return g.type == PoolType::Max && !g.volumetric && g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 &&
         g.pw == 0 && 2 * g.oh <= g.ih && 2 * g.ow <= g.iw;
}

// dy[i], or nothing where a fused relu's output y[i] was not positive.
template <class T>
T gated(const T* dy, const T* relu_y, int64_t i) {
  return !relu_y || relu_y[i] > T(0) ? dy[i] : T(0);
}

// Adds the plane's gradient to dx (zeroed beforehand for OpReq::Write).
template <class T>
void backward_plane(const PoolGeom& g, const Windows& win, const T* dy, const T* mask, const T* relu_y, T* dx,
                    int64_t step) {
  const int64_t out = g.out_pixels();
  if (g.type == PoolType::Max) {
    for (int64_t o = 0; o < out; ++o) dx[decode_pool_index(mask[o * step]) * step] += gated(dy, relu_y, o * step);
    return;
  }
  win.for_each(g, [&](int64_t o, const PoolSpan& d, const PoolSpan& r, const PoolSpan& c) {
    const T grad = dy[o * step];
    const T share = g.type == PoolType::Avg ? grad / static_cast<T>(pool_window_size(g.include_pad, d, r, c)) : grad;
    for_each_in_window(g, d, r, c, [&](int64_t i) { dx[i * step] += share; });
  });
}

// The gradient of max2x2_nhwc in one pass over dx: every input element inside the windows gets
// its window's gradient where the mask names it and zero elsewhere (no zero-fill, no scatter),
// four channels at a time; a last odd row or column, outside every window, gets zero.
void max2x2_nhwc_backward(const PoolGeom& g, const float* dy, const float* mask, const float* relu_y, float* dx,
                          OpReq req) {
  const int64_t ch = g.c;
  const auto put = [req](float* at, __m128 v) {
    _mm_storeu_ps(at, req == OpReq::Add ? _mm_add_ps(_mm_loadu_ps(at), v) : v);
  };
  for_each_window_nhwc(g, [&](int64_t image, const int32_t(&taps)[4], int64_t pixel) {
    float* in[4];
    for (int k = 0; k < 4; ++k) in[k] = dx + (image + taps[k]) * ch;
    const int64_t o = pixel * ch;
    int64_t c = 0;
    for (; c + 4 <= ch; c += 4) {
      __m128 d = _mm_loadu_ps(dy + o + c);
      if (relu_y) d = _mm_and_ps(d, _mm_cmpgt_ps(_mm_loadu_ps(relu_y + o + c), _mm_setzero_ps()));
      const __m128i where = _mm_castps_si128(_mm_loadu_ps(mask + o + c));
      for (int k = 0; k < 4; ++k)
        put(in[k] + c, _mm_and_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(where, _mm_set1_epi32(taps[k]))), d));
    }
    for (; c < ch; ++c) {
      const float d = gated(dy, relu_y, o + c);
      const int64_t where = decode_pool_index(mask[o + c]);
      for (int k = 0; k < 4; ++k) assign(in[k][c], req, where == taps[k] ? d : 0.0f);
    }
  });
  if (req == OpReq::Add) return;
  for (int64_t n = 0; n < g.n; ++n) {
    float* image = dx + n * g.ih * g.iw * ch;
    if (g.ih > 2 * g.oh) std::fill(image + (g.ih - 1) * g.iw * ch, image + g.ih * g.iw * ch, 0.0f);
    if (g.iw > 2 * g.ow)
      for (int64_t h = 0; h < 2 * g.oh; ++h) std::fill_n(image + (h * g.iw + g.iw - 1) * ch, ch, 0.0f);
  }
}

}  // namespace

template <class T>
void direct_pool_forward(const PoolGeom& g, const T* x, T* y, T* mask, OpReq req) {
  const bool max = g.type == PoolType::Max;
  if constexpr (std::is_same_v<T, float>) {
    if (is_max2x2(g) && g.channels_last) return max2x2_nhwc(g, x, y, mask, req);
    if (is_max2x2(g)) {
      const int64_t in = g.in_pixels(), out = g.out_pixels();
      for_each_plane(g, [&](int64_t p) { max2x2_plane(g, x + p * in, y + p * out, mask + p * out, req); });
      return;
    }
  }
  const Windows win(g);
  for_each_plane(g, [&](int64_t p) {
    const Plane at = plane(g, p);
    forward_plane(g, win, x + at.x, y + at.y, max ? mask + at.y : nullptr, req, at.step);
  });
}

template <class T>
void direct_pool_backward(const PoolGeom& g, const T* dy, const T* mask, const T* relu_y, T* dx, OpReq req) {
  if (req == OpReq::Null) return;
  const bool max = g.type == PoolType::Max;
  BRAID_CHECK(max || !relu_y, "Pooling: only max pooling takes a fused relu's gradient");
  BRAID_CHECK(g.type != PoolType::Lp, "Pooling: Lp pooling's gradient is lp_pool_backward's");
  if constexpr (std::is_same_v<T, float>)
    if (is_max2x2(g) && g.channels_last) return max2x2_nhwc_backward(g, dy, mask, relu_y, dx, req);
  if (req == OpReq::Write) std::fill(dx, dx + g.x_size(), T(0));
  if (max && g.channels_last) {  // image by image, along memory: dy and mask row by row
    const int64_t in = g.in_pixels(), out = g.out_pixels();
#pragma omp parallel for schedule(static) if (g.x_size() > (1 << 15))
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t o = n * out; o < (n + 1) * out; ++o)
        for (int64_t c = 0; c < g.c; ++c)
          dx[(n * in + decode_pool_index(mask[o * g.c + c])) * g.c + c] += gated(dy, relu_y, o * g.c + c);
    return;
  }
  const Windows win(g);
  for_each_plane(g, [&](int64_t p) {
    const Plane at = plane(g, p);
    backward_plane(g, win, dy + at.y, max ? mask + at.y : nullptr, relu_y ? relu_y + at.y : nullptr, dx + at.x,
                   at.step);
  });
}

template <class T>
void lp_pool_backward(const PoolGeom& g, const T* x, const T* y, const T* dy, T* dx, OpReq req) {
  if (req == OpReq::Null) return;
  if (req == OpReq::Write) std::fill(dx, dx + g.x_size(), T(0));
  const Windows win(g);
  for_each_plane(g, [&](int64_t p) {
    const Plane at = plane(g, p);
    win.for_each(g, [&](int64_t o, const PoolSpan& d, const PoolSpan& r, const PoolSpan& c) {
      const T grad = dy[at.y + o * at.step], out = y[at.y + o * at.step];
      for_each_in_window(g, d, r, c, [&](int64_t i) {
        const T in = x[at.x + i * at.step];
        dx[at.x + i * at.step] += g.p == 1 ? grad : g.p == 2 ? grad * in / out : grad * in * in / (out * out);
      });
    });
  });
}

template <class T>
void pool_forward(const PoolGeom& g, const T* x, T* y, T* mask, OpReq req) {
  if constexpr (std::is_same_v<T, float>)
    if (dnnl_pool_supported(g)) return dnnl_pool_forward(g, x, y, req);
  direct_pool_forward(g, x, y, mask, req);
}

template <class T>
void pool_backward(const PoolGeom& g, const T* dy, const T* mask, const T* relu_y, T* dx, OpReq req) {
  if constexpr (std::is_same_v<T, float>)
    if (dnnl_pool_supported(g) && !relu_y) return dnnl_pool_backward(g, dy, dx, req);
  direct_pool_backward(g, dy, mask, relu_y, dx, req);
}

#define BRAID_INSTANTIATE_POOL(T)                                                               \
  template void direct_pool_forward(const PoolGeom&, const T*, T*, T*, OpReq);                  \
  template void direct_pool_backward(const PoolGeom&, const T*, const T*, const T*, T*, OpReq); \
  template void pool_forward(const PoolGeom&, const T*, T*, T*, OpReq);                         \
  template void pool_backward(const PoolGeom&, const T*, const T*, const T*, T*, OpReq);        \
  template void lp_pool_backward(const PoolGeom&, const T*, const T*, const T*, T*, OpReq);
BRAID_INSTANTIATE_POOL(float)
BRAID_INSTANTIATE_POOL(double)
#undef BRAID_INSTANTIATE_POOL

}  // namespace braid::op::detail
