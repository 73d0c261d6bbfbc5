#pragma once
/// Resizing of images held as height × width × channels, with OpenCV's interpolations (the ones
/// MXNet's imresize, resize_short and _image_resize name by number): each output pixel is a
/// weighted sum of nearby source pixels, row-wise then column-wise, borders replicated.
#include <cstdint>
#include <utility>
#include <vector>

namespace braid::image {

/// MXNet's interp numbers, which are OpenCV's: 0 nearest, 1 bilinear, 2 bicubic (a = -0.75),
/// 3 area (box average when shrinking), 4 Lanczos over 8 × 8 pixels.
enum class Interp { Nearest = 0, Linear = 1, Cubic = 2, Area = 3, Lanczos = 4 };

/// Throws braid::Error naming `where` unless 0 <= interp <= 4.
Interp interp_from_int(int interp, const char* where);

/// The source pixels and weights behind each output coordinate along one axis: output o reads
/// index[o * taps + t] with weight[o * taps + t], t < taps.
struct AxisTaps {
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  /// The taps of outputs [first, first + count) only (a window of the resized image).
  AxisTaps slice(int64_t first, int64_t count) const;
  /// [begin, end): the source pixels the taps with a nonzero weight read.
  std::pair<int64_t, int64_t> source_span() const;
};
AxisTaps axis_taps(int64_t in, int64_t out, Interp interp);

/// Resamples `src`, which holds source rows [row0, row0 + h) and columns [col0, col0 + w) (c
/// channels), with the given taps (axis_taps of the whole image, or a slice of them for a window
/// of the output) into `dst` (rows × columns × c of the taps' outputs): a window of a resized
/// image from only the part of the source it reads. Throws if a tap reads outside what `src`
/// holds. Defined for the types resize is.
template <class T>
void resample(const T* src, int64_t h, int64_t w, int64_t c, int64_t row0, int64_t col0, const AxisTaps& rows,
              const AxisTaps& cols, T* dst);

/// Resizes `src` (h × w × c) into `dst` (oh × ow × c). Integer results round to nearest and clamp.
/// Defined for uint8_t, int8_t, int32_t, int64_t, float and double.
template <class T>
void resize(const T* src, int64_t h, int64_t w, int64_t c, T* dst, int64_t oh, int64_t ow, Interp interp);

}  // namespace braid::image
