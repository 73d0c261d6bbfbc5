// Geometric image operators on (H, W, C) images and (N, H, W, C) batches, with MXNet's names:
// _image_flip_left_right, _image_random_flip_left_right, _image_flip_top_bottom,
// _image_random_flip_top_bottom, _image_crop; and Braid's
// _image_padded_crop (a crop whose window may leave the image; outside pixels get pad_value),
// which RandomCrop with padding uses.
#include <algorithm>
#include <random>

#include "image_util.h"
#include "op/common/req_util.h"
#include "op/tensor/matrix_util.h"

namespace braid::op::detail {
namespace {

// Strides of a contiguous (n, h, w, c) image.
Dims nhwc_strides(const ImageDims& g) { return {g.h * g.w * g.c, g.w * g.c, g.c, 1}; }
Dims nhwc(const ImageDims& g) { return {g.n, g.h, g.w, g.c}; }

// ---- flips ----

// The input read with the height (axis 1 of (n, h, w, c)) or the width (axis 2) reversed.
InputView flip_view(const std::string& op, const Shape& in, int axis) {
  ImageDims g = image_dims(op, in);
  InputView v;
  v.bijective = true;
  v.shape = nhwc(g);
  v.strides = nhwc_strides(g);
  const size_t a = static_cast<size_t>(axis);
  v.offset = (v.shape[a] - 1) * v.strides[a];
  v.strides[a] = -v.strides[a];
  return v;
}

// _image_flip_<dir> and _image_random_flip_<dir> (with their _npx_ aliases), reversing `axis`.
void add_flip_pair(Registry& r, const std::string& dir, int axis, const char* what, const char* how) {
  const std::string name = "_image_flip_" + dir, random_name = "_image_random_flip_" + dir;
  OpDef d;
  d.name = name;
  d.doc =
      std::string("Reverses the ") + what + " axis of an image (H, W, C) or of every image of a batch (N, H, W, C).";
  d.parse = no_params(d.name);
  add_view_op(
      r, std::move(d),
      [name](const std::any&, const Shape& in) {
        image_dims(name, in);
        return in;
      },
      [name, axis](const std::any&, const Shape& in) { return flip_view(name, in, axis); });
  r.add_alias("_npx_" + name, name);

  // One coin per call (for a batch: all of its images or none), from the context's generator.
  // No gradient (MXNet passes the output gradient through unflipped, whichever way the coin fell).
  OpDef rd;
  rd.name = random_name;
  rd.doc = std::string("Flips an image (or a whole batch) ") + how + " with probability 0.5.";
  rd.parse = no_params(rd.name);
  rd.needs_rng = true;
  set_image_shape(rd, [random_name](const std::any&, const Shape& in) {
    image_dims(random_name, in);
    return in;
  });
  rd.cpu.forward = [random_name, axis](const OpContext& ctx, const std::any&, const ForwardArgs& a) {
    const TBlob& in = a.inputs[0];
    InputView v = flip_view(random_name, in.shape, axis);
    if (!std::bernoulli_distribution(0.5)(*ctx.rng)) {
      v.offset = 0;
      v.strides = contiguous_strides(v.shape);
    }
    strided_copy(in.dtype, in.dptr, v.offset, v.strides, a.outputs[0].dptr, 0, contiguous_strides(v.shape), v.shape,
                 a.req[0], random_name.c_str());
  };
  r.add(std::move(rd));
  r.add_alias("_npx_" + random_name, random_name);
}

void add_flips(Registry& r) {
  add_flip_pair(r, "left_right", 2, "width", "left to right");
  add_flip_pair(r, "top_bottom", 1, "height", "top to bottom");
}

// ---- crops ----

struct CropParam {
  int64_t x = 0, y = 0, width = 0, height = 0;
  double pad_value = 0;
};

CropParam parse_crop(const AttrMap& a, const std::string& op, bool padded) {
  ParamReader rd(a, op);
  CropParam p;
  p.x = rd.get<int64_t>("x");
  p.y = rd.get<int64_t>("y");
  p.width = rd.get<int64_t>("width");
  p.height = rd.get<int64_t>("height");
  if (padded) p.pad_value = rd.get<double>("pad_value", 0.0);
  rd.finish();
  BRAID_CHECK(p.width > 0 && p.height > 0, "operator ", op, ": width and height must be positive, got ", p.width, " x ",
              p.height);
  return p;
}

// Output shape: the input's with (height, width) in place of (H, W).
Shape crop_shape(const CropParam& p, const Shape& in) {
  Shape s = in;
  s[in.ndim() - 3] = p.height;
  s[in.ndim() - 2] = p.width;
  return s;
}

void add_crop(Registry& r) {
  OpDef d;
  d.name = "_image_crop";
  d.doc =
      "Crops the window of width x height at column x, row y of an image (H, W, C) or of every "
      "image of a batch (N, H, W, C). The window must lie inside the image.";
  d.parse = [](const AttrMap& a) { return std::any(parse_crop(a, "_image_crop", false)); };
  auto check = [](const CropParam& p, const Shape& in) {
    ImageDims g = image_dims("_image_crop", in);
    BRAID_CHECK(p.x >= 0 && p.y >= 0 && p.x + p.width <= g.w && p.y + p.height <= g.h,
                "operator _image_crop: window x=", p.x, " y=", p.y, " width=", p.width, " height=", p.height,
                " leaves the ", g.h, " x ", g.w, " image; need 0 <= x, x + width <= ", g.w,
                ", 0 <= y, y + height <= ", g.h);
    return g;
  };
  add_view_op(
      r, std::move(d),
      [check](const std::any& p, const Shape& in) {
        check(param<CropParam>(p), in);
        return crop_shape(param<CropParam>(p), in);
      },
      [check](const std::any& pa, const Shape& in) {
        const CropParam& p = param<CropParam>(pa);
        ImageDims g = check(p, in);
        InputView v;
        v.shape = {g.n, p.height, p.width, g.c};
        v.strides = nhwc_strides(g);
        v.offset = p.y * v.strides[1] + p.x * g.c;
        return v;
      });
  r.add_alias("_npx__image_crop", "_image_crop");
}

// The part of a padded crop that lies inside the image: rows [y0, y1) and columns [x0, x1) of
// the output, which read the input from row p.y + y0 and column p.x + x0.
struct Overlap {
  int64_t y0, y1, x0, x1;
  bool empty() const { return y0 >= y1 || x0 >= x1; }
};

Overlap overlap(const CropParam& p, const ImageDims& g) {
  return {std::max<int64_t>(0, -p.y), std::min(p.height, g.h - p.y), std::max<int64_t>(0, -p.x),
          std::min(p.width, g.w - p.x)};
}

// Copies the overlap between an image `g` and the window (output `o`), either direction.
void copy_overlap(DType dtype, const CropParam& p, const ImageDims& g, const void* from, void* to, bool to_window,
                  OpReq req) {
  Overlap ov = overlap(p, g);
  if (ov.empty()) return;
  ImageDims o{g.n, p.height, p.width, g.c, g.batch};
  Dims shape = {g.n, ov.y1 - ov.y0, ov.x1 - ov.x0, g.c};
  Dims is = nhwc_strides(g), os = nhwc_strides(o);
  int64_t ioff = (p.y + ov.y0) * is[1] + (p.x + ov.x0) * g.c, ooff = ov.y0 * os[1] + ov.x0 * g.c;
  if (to_window)
    strided_copy(dtype, from, ioff, is, to, ooff, os, shape, req, "_image_padded_crop");
  else
    strided_copy(dtype, from, ooff, os, to, ioff, is, shape, req, "_image_padded_crop");
}

void add_padded_crop(Registry& r) {
  OpDef d;
  d.name = "_image_padded_crop";
  d.doc =
      "Crops the window of width x height at column x, row y (either may be negative) of an "
      "image (H, W, C) or batch (N, H, W, C), as if the image were padded with pad_value on "
      "every side: pixels of the window outside the image are pad_value.";
  d.parse = [](const AttrMap& a) { return std::any(parse_crop(a, "_image_padded_crop", true)); };
  set_image_shape(d, [](const std::any& p, const Shape& in) {
    image_dims("_image_padded_crop", in);
    return crop_shape(param<CropParam>(p), in);
  });
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const CropParam& p = param<CropParam>(pa);
    const TBlob& in = a.inputs[0];
    const TBlob& out = a.outputs[0];
    ImageDims g = image_dims("_image_padded_crop", in.shape);
    BRAID_TYPE_SWITCH(out.dtype, T, "_image_padded_crop", {
      write_with_req(out.ptr<T>(), out.size(), a.req[0], [&](T* dst) {
        std::fill(dst, dst + out.size(), static_cast<T>(p.pad_value));
        copy_overlap(in.dtype, p, g, in.dptr, dst, true, OpReq::Write);
      });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    OpReq req = a.req[0];
    if (req == OpReq::Null) return;
    const TBlob& dx = a.in_grads[0];
    if (req == OpReq::Write) {
      fill_zero(dx);
      req = OpReq::Add;
    }
    copy_overlap(dx.dtype, param<CropParam>(pa), image_dims("_image_padded_crop", dx.shape), a.out_grads[0].dptr,
                 dx.dptr, false, req);
  };
  r.add(std::move(d));
}

}  // namespace

void register_image_geometry_ops(Registry& r) {
  add_flips(r);
  add_crop(r);
  add_padded_crop(r);
}

}  // namespace braid::op::detail
