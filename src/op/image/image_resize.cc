// _image_resize (mx.nd.image.resize, gluon's transforms.Resize): an image (H, W, C) or a batch
// (N, H, W, C) resized to size = (w, h), or (s): s × s, or with keep_ratio the shorter side s and
// the longer one scaled alike (integer division, as MXNet). interp 0 is nearest (source pixel
// floor(x · in / out)), 1 bilinear with pixel centres at half-integers, edges clamped: OpenCV's
// INTER_NEAREST and INTER_LINEAR, which MXNet calls. uint8 results are rounded from float
// arithmetic (OpenCV's fixed-point arithmetic can differ by one level). No gradient, as MXNet's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "image_util.h"

namespace braid::op::detail {
namespace {

constexpr const char* kResize = "_image_resize";

struct ResizeParam {
  Shape size;
  bool keep_ratio = false;
  int interp = 1;
};

// Output (height, width) for an input of `h` × `w`.
std::pair<int64_t, int64_t> resized(const ResizeParam& p, int64_t h, int64_t w) {
  if (p.size.ndim() == 2) return {p.size[1], p.size[0]};
  const int64_t s = p.size[0];
  if (!p.keep_ratio) return {s, s};
  return h > w ? std::pair{h * s / w, s} : std::pair{s, w * s / h};
}

// Per output coordinate: the two source coordinates and the second's weight.
struct Taps {
  std::vector<int64_t> lo, hi;
  std::vector<double> frac;
};

Taps taps(int64_t in, int64_t out, int interp) {
  Taps t;
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t lo = 0;
    double frac = 0;
    if (interp == 0) {
      lo = std::min(static_cast<int64_t>(std::floor(static_cast<double>(o) * scale)), in - 1);
    } else {
      const double src = (static_cast<double>(o) + 0.5) * scale - 0.5;
      lo = static_cast<int64_t>(std::floor(src));
      frac = src - static_cast<double>(lo);
      if (lo < 0) lo = 0, frac = 0;
      if (lo >= in - 1) lo = in - 1, frac = 0;
    }
    t.lo.push_back(lo);
    t.hi.push_back(std::min(lo + 1, in - 1));
    t.frac.push_back(frac);
  }
  return t;
}

template <class T>
T from_double(double v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(
        std::clamp(std::round(v), double(std::numeric_limits<T>::min()), double(std::numeric_limits<T>::max())));
  else
    return static_cast<T>(v);
}

template <class T>
void resize_images(const ImageDims& in, int64_t oh, int64_t ow, int interp, const T* x, T* y) {
  const Taps rows = taps(in.h, oh, interp), cols = taps(in.w, ow, interp);
  const int64_t c = in.c;
#pragma omp parallel for schedule(static) if (in.n * oh * ow * c > (1 << 15))
  for (int64_t r = 0; r < in.n * oh; ++r) {
    const int64_t n = r / oh, oy = r % oh;
    const T* image = x + n * in.h * in.w * c;
    const T *top = image + rows.lo[static_cast<size_t>(oy)] * in.w * c,
            *bottom = image + rows.hi[static_cast<size_t>(oy)] * in.w * c;
    const double fy = rows.frac[static_cast<size_t>(oy)];
    T* out = y + r * ow * c;
    for (int64_t ox = 0; ox < ow; ++ox) {
      const int64_t left = cols.lo[static_cast<size_t>(ox)] * c, right = cols.hi[static_cast<size_t>(ox)] * c;
      const double fx = cols.frac[static_cast<size_t>(ox)];
      for (int64_t k = 0; k < c; ++k) {
        const double upper = (1 - fx) * double(top[left + k]) + fx * double(top[right + k]);
        const double lower = (1 - fx) * double(bottom[left + k]) + fx * double(bottom[right + k]);
        out[ox * c + k] = from_double<T>((1 - fy) * upper + fy * lower);
      }
    }
  }
}

}  // namespace

void register_image_resize_op(Registry& r) {
  OpDef d;
  d.name = kResize;
  d.doc = "Resizes an image (H, W, C) or a batch (N, H, W, C) to size (w, h) or (s), nearest or bilinear.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, kResize);
    ResizeParam p;
    p.size = rd.get<Shape>("size", Shape({}));
    p.keep_ratio = rd.get<bool>("keep_ratio", false);
    p.interp = rd.get<int>("interp", 1);
    rd.finish();
    BRAID_CHECK(p.size.ndim() == 1 || p.size.ndim() == 2, "operator ", kResize, ": size must be (w, h) or (s); got ",
                p.size);
    for (int i = 0; i < p.size.ndim(); ++i)
      BRAID_CHECK(p.size[i] > 0, "operator ", kResize, ": size must be positive; got ", p.size);
    BRAID_CHECK(p.interp == 0 || p.interp == 1, "operator ", kResize, ": interp=", p.interp,
                " is not supported; use 0 (nearest) or 1 (bilinear)");
    return std::any(p);
  };
  set_image_shape(d, [](const std::any& pa, const Shape& in) {
    const ImageDims g = image_dims(kResize, in);
    const auto [h, w] = resized(param<ResizeParam>(pa), g.h, g.w);
    return g.batch ? Shape({g.n, h, w, g.c}) : Shape({h, w, g.c});
  });
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_CHECK(a.req[0] != OpReq::Add, "operator ", kResize, " cannot add to its output (req 'add')");
    const ImageDims in = image_dims(kResize, a.inputs[0].shape), out = image_dims(kResize, a.outputs[0].shape);
    const int interp = param<ResizeParam>(pa).interp;
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, kResize,
                      { resize_images<T>(in, out.h, out.w, interp, a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>()); });
  };
  r.add(std::move(d));
  r.add_alias("_npx__image_resize", kResize);
}

}  // namespace braid::op::detail
