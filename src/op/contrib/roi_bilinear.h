#pragma once
// Internal: the bilinear sample of ROIAlign (contrib.ROIAlign, contrib.mrcnn_mask_target).
#include <algorithm>
#include <cstdint>

namespace braid::op::detail {

/// Calls f(flat index into the plane, weight) for the bilinear sample at (y, x) of an h × w
/// plane, Detectron's way: nothing beyond one pixel outside, clamped at the edges.
template <class F>
void roi_bilinear(double y, double x, int64_t h, int64_t w, F f) {
  if (y < -1.0 || y > static_cast<double>(h) || x < -1.0 || x > static_cast<double>(w)) return;
  y = std::max(y, 0.0), x = std::max(x, 0.0);
  auto y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= h - 1) y0 = y1 = h - 1, y = static_cast<double>(y0);
  if (x0 >= w - 1) x0 = x1 = w - 1, x = static_cast<double>(x0);
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0);
  f(y0 * w + x0, (1 - ly) * (1 - lx));
  f(y0 * w + x1, (1 - ly) * lx);
  f(y1 * w + x0, ly * (1 - lx));
  f(y1 * w + x1, ly * lx);
}

}  // namespace braid::op::detail
