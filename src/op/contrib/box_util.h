#pragma once
// Internal: box geometry shared by the bounding-box operators (box_nms.cc, box_codec.cc,
// multibox.cc, proposal.cc). A box is
// four consecutive numbers, either corners (xmin, ymin, xmax, ymax) or a center and a size
// (x, y, width, height); the arithmetic is done in the arrays' own type, as MXNet's.
#include <algorithm>
#include <string>

#include "braid/op/param_reader.h"

namespace braid::op::detail {

enum class BoxFormat { Corner, Center };

/// Reads a format attribute ("corner" or "center").
inline BoxFormat read_box_format(ParamReader& rd, const std::string& key, BoxFormat fallback) {
  const std::string f = rd.get_enum(key, {"corner", "center"}, fallback == BoxFormat::Corner ? "corner" : "center");
  return f == "corner" ? BoxFormat::Corner : BoxFormat::Center;
}

/// The overlap of two boxes along one axis: a and b point at that axis' first number (xmin or x),
/// the axis' second number (xmax or width) is two further. Never negative.
template <class T>
T box_axis_overlap(const T* a, const T* b, BoxFormat f) {
  T lo, hi;  // comparisons written out so that NaNs fall as in MXNet
  if (f == BoxFormat::Corner) {
    lo = a[0] > b[0] ? a[0] : b[0];
    hi = a[2] < b[2] ? a[2] : b[2];
  } else {
    const T ah = a[2] / T(2), bh = b[2] / T(2);
    const T al = a[0] - ah, ar = a[0] + ah, bl = b[0] - bh, br = b[0] + bh;
    lo = bl > al ? bl : al;
    hi = br < ar ? br : ar;
  }
  const T w = hi - lo;
  return w > T(0) ? w : T(0);
}

/// The intersection area of two boxes.
template <class T>
T box_intersection(const T* a, const T* b, BoxFormat f) {
  return box_axis_overlap(a, b, f) * box_axis_overlap(a + 1, b + 1, f);
}

/// A box's area; 0 when its width or height is negative.
template <class T>
T box_area(const T* b, BoxFormat f) {
  const T w = f == BoxFormat::Corner ? b[2] - b[0] : b[2];
  const T h = f == BoxFormat::Corner ? b[3] - b[1] : b[3];
  return w < T(0) || h < T(0) ? T(0) : w * h;
}

/// (xmax - xmin) * (ymax - ymin) of a corner box, not clamped (MultiBoxTarget and
/// MultiBoxDetection take a reversed box's area as it comes, as MXNet's).
template <class T>
T box_corner_signed_area(const T* b) {
  return (b[2] - b[0]) * (b[3] - b[1]);
}

/// Faster R-CNN's pixel convention (proposal.cc): a corner box covers the pixels x1..x2 and
/// y1..y2 inclusive, so its width is x2 - x1 + 1. Its area, computed as MXNet's proposal ops do.
template <class T>
T box_pixel_area(const T* b) {
  return (b[2] - b[0] + T(1)) * (b[3] - b[1] + T(1));
}

/// The intersection area of two corner boxes in the pixel convention; never negative.
template <class T>
T box_pixel_intersection(const T* a, const T* b) {
  const T x1 = std::max(a[0], b[0]), y1 = std::max(a[1], b[1]);
  const T x2 = std::min(a[2], b[2]), y2 = std::min(a[3], b[3]);
  const T w = std::max(T(0), x2 - x1 + T(1)), h = std::max(T(0), y2 - y1 + T(1));
  return w * h;
}

}  // namespace braid::op::detail
