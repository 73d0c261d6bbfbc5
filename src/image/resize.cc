// Separable resampling with OpenCV's tap positions and weights for each interpolation.
#include "braid/image/resize.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "braid/base/error.h"

namespace braid::image {
namespace {

constexpr double kPi = 3.14159265358979323846;

void cubic_weights(double x, double* w) {  // OpenCV's interpolateCubic, a = -0.75
  constexpr double a = -0.75;
  w[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
  w[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  w[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
  w[3] = 1 - w[0] - w[1] - w[2];
}

void lanczos_weights(double x, double* w) {  // sinc(d) · sinc(d / 4) at distances d = x + 3 - t, normalised
  double sum = 0, v[8];
  for (int t = 0; t < 8; ++t) {
    const double d = x + 3 - t;
    v[t] = std::abs(d) < 1e-9 ? 1.0 : 4 * std::sin(kPi * d) * std::sin(kPi * d / 4) / (kPi * kPi * d * d);
    sum += v[t];
  }
  for (int t = 0; t < 8; ++t) w[t] = v[t] / sum;
}

// Shrinking by area: each source pixel weighs by how much of it the output pixel's span covers.
AxisTaps area_shrink_taps(int64_t in, int64_t out) {
  const double scale = double(in) / double(out);
  AxisTaps t;
  t.taps = static_cast<int64_t>(std::ceil(scale)) + 1;
  t.index.assign(size_t(out * t.taps), 0);
  t.weight.assign(size_t(out * t.taps), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    const double begin = double(o) * scale, end = std::min(double(in), begin + scale);
    int64_t k = 0;
    for (int64_t s = static_cast<int64_t>(std::floor(begin)); s < end && k < t.taps; ++s, ++k) {
      const double covered = std::min(end, double(s + 1)) - std::max(begin, double(s));
      t.index[size_t(o * t.taps + k)] = std::min(s, in - 1);
      t.weight[size_t(o * t.taps + k)] = covered / scale;
    }
  }
  return t;
}

// Rounds half to even (the SSE conversion in the default rounding mode: OpenCV's cvRound),
// without std::nearbyint's library call.
inline int64_t round_even(float v) { return _mm_cvtss_si64(_mm_set_ss(v)); }
inline int64_t round_even(double v) { return _mm_cvtsd_si64(_mm_set_sd(v)); }

// Integers round half to even and saturate, as OpenCV's saturate_cast.
template <class T, class Acc>
T from_float(Acc v) {
  if constexpr (std::is_integral_v<T>) {
    if (!(v > Acc(std::numeric_limits<T>::lowest()))) return std::numeric_limits<T>::lowest();  // NaN too
    if (v >= Acc(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(round_even(v));
  } else {
    return static_cast<T>(v);
  }
}

// One row resampled along x: out[x, k] = sum over taps of weight · in[offset + k], C channels.
template <class T, class Acc, int C>
void resample_row(const T* in, int64_t ow, int64_t taps, const int64_t* offset, const Acc* weight, Acc* out) {
  for (int64_t x = 0; x < ow; ++x, offset += taps, weight += taps, out += C) {
    Acc sum[C] = {};
    for (int64_t t = 0; t < taps; ++t) {
      const T* p = in + offset[t];
      for (int k = 0; k < C; ++k) sum[k] += weight[t] * Acc(p[k]);
    }
    for (int k = 0; k < C; ++k) out[k] = sum[k];
  }
}

// resample_row for 3 channels and 2 taps, the sums in registers.
template <class T, class Acc>
void bilinear_rgb_row(const T* in, int64_t ow, const int64_t* offset, const Acc* weight, Acc* out) {
  for (int64_t x = 0; x < ow; ++x, offset += 2, weight += 2, out += 3) {
    const T *a = in + offset[0], *b = in + offset[1];
    const Acc wa = weight[0], wb = weight[1];
    out[0] = wa * Acc(a[0]) + wb * Acc(b[0]);
    out[1] = wa * Acc(a[1]) + wb * Acc(b[1]);
    out[2] = wa * Acc(a[2]) + wb * Acc(b[2]);
  }
}

// The same for one channel of `stride` interleaved ones.
template <class T, class Acc>
void resample_channel(const T* in, int64_t stride, int64_t ow, int64_t taps, const int64_t* offset, const Acc* weight,
                      Acc* out) {
  for (int64_t x = 0; x < ow; ++x, offset += taps, weight += taps) {
    Acc sum = 0;
    for (int64_t t = 0; t < taps; ++t) sum += weight[t] * Acc(in[offset[t]]);
    out[x * stride] = sum;
  }
}

}  // namespace

Interp interp_from_int(int interp, const char* where) {
  BRAID_CHECK(interp >= 0 && interp <= 4, where, ": interp=", interp,
              " is not supported; use 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area) or 4 (Lanczos)");
  return static_cast<Interp>(interp);
}

AxisTaps axis_taps(int64_t in, int64_t out, Interp interp) {
  const double scale = double(in) / double(out);
  if (interp == Interp::Area && in > out) return area_shrink_taps(in, out);
  AxisTaps t;
  t.taps = interp == Interp::Nearest ? 1 : interp == Interp::Cubic ? 4 : interp == Interp::Lanczos ? 8 : 2;
  t.index.resize(size_t(out * t.taps));
  t.weight.resize(size_t(out * t.taps));
  for (int64_t o = 0; o < out; ++o) {
    int64_t* idx = t.index.data() + o * t.taps;
    double* w = t.weight.data() + o * t.taps;
    if (interp == Interp::Nearest) {
      idx[0] = std::min(static_cast<int64_t>(std::floor(double(o) * scale)), in - 1);
      w[0] = 1;
      continue;
    }
    double src = (double(o) + 0.5) * scale - 0.5;
    int64_t lo = static_cast<int64_t>(std::floor(src));
    double frac = src - double(lo);
    if (interp == Interp::Area) {  // growing by area: OpenCV's linear taps with sharper weights
      lo = static_cast<int64_t>(std::floor(double(o) * scale));
      frac = double(o + 1) - double(lo + 1) / scale;
      frac = frac <= 0 ? 0 : frac - std::floor(frac);
    }
    if (t.taps == 2) {
      if (lo < 0) lo = 0, frac = 0;
      if (lo >= in - 1) lo = in - 1, frac = 0;
      w[0] = 1 - frac, w[1] = frac;
    } else if (t.taps == 4) {
      cubic_weights(frac, w);
    } else {
      lanczos_weights(frac, w);
    }
    const int64_t first = lo - (t.taps / 2 - 1);
    for (int64_t k = 0; k < t.taps; ++k) idx[k] = std::clamp(first + k, int64_t(0), in - 1);
  }
  return t;
}

template <class T>
void resample(const T* src, int64_t h, int64_t w, int64_t c, int64_t row0, int64_t col0, const AxisTaps& rows,
              const AxisTaps& cols, T* dst) {
  // 8-bit pixels are summed in float (exact enough for 256 levels), the rest in double.
  using Acc = std::conditional_t<sizeof(T) == 1, float, double>;
  const int64_t oh = int64_t(rows.index.size()) / rows.taps, ow = int64_t(cols.index.size()) / cols.taps;
  // Rows first: each source row some output row reads, resampled to ow columns; then the columns.
  std::vector<char> needed(size_t(h), 0);
  for (size_t t = 0; t < rows.index.size(); ++t) {
    if (rows.weight[t] == 0) continue;
    BRAID_CHECK(rows.index[t] >= row0 && rows.index[t] < row0 + h, "resample: a tap reads source row ", rows.index[t],
                ", outside the rows held [", row0, ", ", row0 + h, ")");
    needed[size_t(rows.index[t] - row0)] = 1;
  }
  const int64_t row = ow * c;
  std::vector<Acc> wide(size_t(h * row)), col_weight(cols.weight.begin(), cols.weight.end());
  std::vector<int64_t> col_offset(cols.index.size());  // element offsets of the taps in a row
  for (size_t t = 0; t < cols.index.size(); ++t) {
    if (cols.weight[t] == 0) continue;  // a tap that adds nothing reads the first column held
    BRAID_CHECK(cols.index[t] >= col0 && cols.index[t] < col0 + w, "resample: a tap reads source column ",
                cols.index[t], ", outside the columns held [", col0, ", ", col0 + w, ")");
    col_offset[t] = (cols.index[t] - col0) * c;
  }
  for (int64_t y = 0; y < h; ++y) {
    if (!needed[size_t(y)]) continue;
    if (c == 3 && cols.taps == 2)  // bilinear colour images, the common case
      bilinear_rgb_row<T, Acc>(src + y * w * c, ow, col_offset.data(), col_weight.data(), wide.data() + y * row);
    else if (c == 3)
      resample_row<T, Acc, 3>(src + y * w * c, ow, cols.taps, col_offset.data(), col_weight.data(),
                              wide.data() + y * row);
    else if (c == 1)
      resample_row<T, Acc, 1>(src + y * w * c, ow, cols.taps, col_offset.data(), col_weight.data(),
                              wide.data() + y * row);
    else
      for (int64_t k = 0; k < c; ++k)  // one channel at a time, as a 1-channel row with stride c
        resample_channel(src + y * w * c + k, c, ow, cols.taps, col_offset.data(), col_weight.data(),
                         wide.data() + y * row + k);
  }
  std::vector<Acc> acc(static_cast<size_t>(row));
  for (int64_t y = 0; y < oh; ++y) {
    std::fill(acc.begin(), acc.end(), Acc(0));
    for (int64_t t = 0; t < rows.taps; ++t) {
      const Acc wt = Acc(rows.weight[size_t(y * rows.taps + t)]);
      if (wt == 0) continue;
      const Acc* __restrict in = wide.data() + (rows.index[size_t(y * rows.taps + t)] - row0) * row;
      Acc* __restrict sum = acc.data();
      for (int64_t i = 0; i < row; ++i) sum[i] += wt * in[i];
    }
    T* out = dst + y * row;
    for (int64_t i = 0; i < row; ++i) out[i] = from_float<T>(acc[size_t(i)]);
  }
}

template <class T>
void resize(const T* src, int64_t h, int64_t w, int64_t c, T* dst, int64_t oh, int64_t ow, Interp interp) {
  if (h == oh && w == ow) {
    std::copy(src, src + h * w * c, dst);
    return;
  }
  resample(src, h, w, c, 0, 0, axis_taps(h, oh, interp), axis_taps(w, ow, interp), dst);
}

AxisTaps AxisTaps::slice(int64_t first, int64_t count) const {
  AxisTaps out;
  out.taps = taps;
  out.index.assign(index.begin() + first * taps, index.begin() + (first + count) * taps);
  out.weight.assign(weight.begin() + first * taps, weight.begin() + (first + count) * taps);
  return out;
}

std::pair<int64_t, int64_t> AxisTaps::source_span() const {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = -1;
  for (size_t t = 0; t < index.size(); ++t)
    if (weight[t] != 0) lo = std::min(lo, index[t]), hi = std::max(hi, index[t]);
  return hi < 0 ? std::pair<int64_t, int64_t>{0, 0} : std::pair<int64_t, int64_t>{lo, hi + 1};
}

#define BRAID_RESIZE_FOR(T)                                                                                          \
  template void resize<T>(const T*, int64_t, int64_t, int64_t, T*, int64_t, int64_t, Interp);                        \
  template void resample<T>(const T*, int64_t, int64_t, int64_t, int64_t, int64_t, const AxisTaps&, const AxisTaps&, \
                            T*);
BRAID_RESIZE_FOR(uint8_t)
BRAID_RESIZE_FOR(int8_t)
BRAID_RESIZE_FOR(int32_t)
BRAID_RESIZE_FOR(int64_t)
BRAID_RESIZE_FOR(float)
BRAID_RESIZE_FOR(double)
#undef BRAID_RESIZE_FOR

}  // namespace braid::image
