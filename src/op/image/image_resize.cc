// _image_resize (mx.nd.image.resize, gluon's transforms.Resize): an image (H, W, C) or a batch
// (N, H, W, C) resized to size = (w, h), or (s): s × s, or with keep_ratio the shorter side s and
// the longer one scaled alike (integer division, as MXNet). interp 0 is nearest (source pixel
// floor(x · in / out)), 1 bilinear, 2 bicubic, 3 area, 4 Lanczos: OpenCV's interpolations, which
// MXNet calls (braid/image/resize.h). uint8 results are rounded from floating-point arithmetic
// (OpenCV's fixed-point arithmetic can differ by one level). No gradient, as MXNet's.
#include <utility>

#include "braid/image/resize.h"
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

template <class T>
void resize_images(const ImageDims& in, int64_t oh, int64_t ow, image::Interp interp, const T* x, T* y) {
#pragma omp parallel for schedule(static) if (in.n > 1 && in.n * oh * ow * in.c > (1 << 15))
  for (int64_t n = 0; n < in.n; ++n)
    image::resize<T>(x + n * in.h * in.w * in.c, in.h, in.w, in.c, y + n * oh * ow * in.c, oh, ow, interp);
}

}  // namespace

void register_image_resize_op(Registry& r) {
  OpDef d;
  d.name = kResize;
  d.doc = "Resizes an image (H, W, C) or a batch (N, H, W, C) to size (w, h) or (s), with OpenCV's interpolations.";
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
    image::interp_from_int(p.interp, kResize);
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
    const image::Interp interp = static_cast<image::Interp>(param<ResizeParam>(pa).interp);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, kResize,
                      { resize_images<T>(in, out.h, out.w, interp, a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>()); });
  };
  r.add(std::move(d));
  r.add_alias("_npx__image_resize", kResize);
}

}  // namespace braid::op::detail
