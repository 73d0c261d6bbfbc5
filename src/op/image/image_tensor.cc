// Image <-> tensor operators: _image_to_tensor (HWC [0, 255] -> CHW float32 [0, 1]) and
// _image_normalize ((x - mean[c]) / std[c] on CHW or NCHW), with MXNet's names and attributes.
#include <vector>

#include "image_util.h"
#include "op/nn/nn_util.h"

namespace braid::op::detail {

ImageDims image_dims(const std::string& op, const Shape& shape, const char* layout) {
  bool hwc = std::string(layout) == "HWC";
  BRAID_CHECK(shape.ndim() == 3 || shape.ndim() == 4, "operator ", op, ": expected an image of shape ",
              hwc ? "(H, W, C) or a batch (N, H, W, C)" : "(C, H, W) or a batch (N, C, H, W)", ", got ", shape);
  ImageDims d;
  d.batch = shape.ndim() == 4;
  int o = d.batch ? 1 : 0;
  if (d.batch) d.n = shape[0];
  if (hwc) {
    d.h = shape[o], d.w = shape[o + 1], d.c = shape[o + 2];
  } else {
    d.c = shape[o], d.h = shape[o + 1], d.w = shape[o + 2];
  }
  return d;
}

void set_image_shape(OpDef& d, std::function<Shape(const std::any&, const Shape&)> out_shape) {
  d.list_arguments = args({"data"});
  d.infer_shape = [op = d.name, out_shape](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out,
                                           std::vector<Shape>&) {
    if (!in[0].known()) return false;
    merge_shape(out[0], out_shape(p, in[0]), op, "output");
    return in[0].fully_known();
  };
}

namespace {

// ---- _image_to_tensor ----

// dst[i] (=, +=) src[i * stride] / 255 for i < n: one channel plane of an HWC image. The simd
// pragma vectorizes it at -O2, whose cost model would not.
template <class T>
void scale_plane(const T* src, int64_t stride, float* dst, int64_t n, OpReq req) {
  if (req == OpReq::Write && stride == 1) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]) / 255.0f;
  } else if (req == OpReq::Write) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i * stride]) / 255.0f;
  } else if (req == OpReq::Add) {
    for (int64_t i = 0; i < n; ++i) dst[i] += static_cast<float>(src[i * stride]) / 255.0f;
  }
}

void add_to_tensor(Registry& r) {
  OpDef d;
  d.name = "_image_to_tensor";
  d.doc =
      "Converts an image (H, W, C) or batch (N, H, W, C) with values in [0, 255] to a float32 "
      "tensor (C, H, W) or (N, C, H, W) with values in [0, 1] (each value divided by 255).";
  d.parse = no_params(d.name);
  set_image_shape(d, [](const std::any&, const Shape& in) {
    ImageDims g = image_dims("_image_to_tensor", in);
    return g.batch ? Shape({g.n, g.c, g.h, g.w}) : Shape({g.c, g.h, g.w});
  });
  d.infer_type = [](const std::any&, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = DType::Float32;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const TBlob& in = a.inputs[0];
    ImageDims g = image_dims("_image_to_tensor", in.shape);
    float* out = a.outputs[0].ptr<float>();
    const int64_t plane = g.h * g.w;
    BRAID_TYPE_SWITCH(in.dtype, T, "_image_to_tensor", {
      const T* x = in.ptr<T>();
      for (int64_t n = 0; n < g.n; ++n)
        for (int64_t ch = 0; ch < g.c; ++ch)
          scale_plane(x + n * plane * g.c + ch, g.c, out + (n * g.c + ch) * plane, plane, a.req[0]);
    });
  };
  r.add(std::move(d));
  r.add_alias("_npx__image_to_tensor", "_image_to_tensor");
}

// ---- _image_normalize ----

struct NormalizeParam {
  std::vector<double> mean, std;
};

// mean/std of each of the c channels (a single value serves every channel).
std::vector<double> per_channel(const std::vector<double>& v, int64_t c, const char* what, const Shape& s) {
  BRAID_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == c, "operator _image_normalize: ", what, " has ",
              v.size(), " values but the input ", s, " has ", c, " channels; give one value or one per channel");
  return v.size() == 1 ? std::vector<double>(static_cast<size_t>(c), v[0]) : v;
}

// Calls f(channel, offset of the first element, plane size) for each (n, c) plane of a CHW/NCHW blob.
template <class F>
void for_each_plane(const Shape& s, F f) {
  ImageDims g = image_dims("_image_normalize", s, "CHW");
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t ch = 0; ch < g.c; ++ch) f(ch, (n * g.c + ch) * g.h * g.w, g.h * g.w);
}

void add_normalize(Registry& r) {
  OpDef d;
  d.name = "_image_normalize";
  d.doc =
      "Normalizes a tensor (C, H, W) or batch (N, C, H, W) per channel: (x - mean[c]) / std[c]; "
      "mean and std hold one value or one per channel.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "_image_normalize");
    NormalizeParam p{rd.get<std::vector<double>>("mean", {0.0}), rd.get<std::vector<double>>("std", {1.0})};
    rd.finish();
    BRAID_CHECK(!p.mean.empty() && !p.std.empty(), "operator _image_normalize: mean and std need at least one value");
    for (double s : p.std)
      BRAID_CHECK(s != 0.0, "operator _image_normalize: std contains 0; every standard deviation must be nonzero");
    return std::any(p);
  };
  set_image_shape(d, [](const std::any& p, const Shape& in) {
    ImageDims g = image_dims("_image_normalize", in, "CHW");
    per_channel(param<NormalizeParam>(p).mean, g.c, "mean", in);
    per_channel(param<NormalizeParam>(p).std, g.c, "std", in);
    return in;
  });
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
    infer_same_type("_image_normalize", in, out, aux);
    BRAID_CHECK(in[0] == kDTypeUnknown || in[0] == DType::Float32 || in[0] == DType::Float64,
                "operator _image_normalize: input is ", dtype_name(in[0]),
                "; normalize float32 or float64 tensors (apply ToTensor or Cast first)");
  };
  d.cpu.forward = [](const OpContext&, const std::any& p, const ForwardArgs& a) {
    const TBlob& in = a.inputs[0];
    const auto& pr = param<NormalizeParam>(p);
    int64_t c = image_dims("_image_normalize", in.shape, "CHW").c;
    auto mean = per_channel(pr.mean, c, "mean", in.shape), sd = per_channel(pr.std, c, "std", in.shape);
    BRAID_REAL_TYPE_SWITCH(in.dtype, T, "_image_normalize", {
      const T* x = in.ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      for_each_plane(in.shape, [&](int64_t ch, int64_t at, int64_t len) {
        const T m = static_cast<T>(mean[static_cast<size_t>(ch)]), s = static_cast<T>(sd[static_cast<size_t>(ch)]);
        write_each(y + at, a.req[0], len, [x = x + at, m, s](int64_t i) { return (x[i] - m) / s; });
      });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& p, const BackwardArgs& a) {
    const TBlob& dx = a.in_grads[0];
    auto sd =
        per_channel(param<NormalizeParam>(p).std, image_dims("_image_normalize", dx.shape, "CHW").c, "std", dx.shape);
    BRAID_REAL_TYPE_SWITCH(dx.dtype, T, "_image_normalize", {
      const T* g = a.out_grads[0].ptr<T>();
      T* o = dx.ptr<T>();
      for_each_plane(dx.shape, [&](int64_t ch, int64_t at, int64_t len) {
        const T s = static_cast<T>(sd[static_cast<size_t>(ch)]);
        write_each(o + at, a.req[0], len, [g = g + at, s](int64_t i) { return g[i] / s; });
      });
    });
  };
  r.add(std::move(d));
  r.add_alias("_npx__image_normalize", "_image_normalize");
}

}  // namespace

void register_image_ops(Registry& r) {
  add_to_tensor(r);
  add_normalize(r);
  register_image_geometry_ops(r);
  register_image_color_ops(r);
  register_image_resize_op(r);
}

}  // namespace braid::op::detail
