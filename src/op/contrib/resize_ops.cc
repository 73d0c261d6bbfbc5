// Image resizing operators of MXNet 1.x's contrib set, on (N, C, H, W):
// - AdaptiveAvgPooling2D: output_size (h, w); output pixel (i, j) averages input rows
//   [floor(i·H/h), ceil((i+1)·H/h)) and the same for columns (PyTorch's adaptive_avg_pool2d).
// - BilinearResize2D: bilinear interpolation to a size given by height/width, by scales, by a
//   second input ('like') or by rounding to even/odd sizes; align_corners (default, MXNet's) maps
//   corner pixels onto corner pixels, otherwise pixel centres are scaled (clamped at 0).
#include <cmath>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "op/tensor/index_util.h"

namespace braid::op::detail {
namespace {

/// Calls f(input plane index, output plane index) for each of the N·C planes, in parallel.
template <class F>
void for_each_plane_pair(const Shape& in, F f) {
  const int64_t planes = in[0] * in[1];
#pragma omp parallel for schedule(static) if (in.size() > (1 << 14))
  for (int64_t p = 0; p < planes; ++p) f(p);
}

// ---- AdaptiveAvgPooling2D --------------------------------------------------------------------

struct AdaptiveParam {
  int64_t oh = 1, ow = 1;
};

/// Input window [start, end) of output position o of n along an axis of length len.
std::pair<int64_t, int64_t> adaptive_window(int64_t o, int64_t n, int64_t len) {
  return {(o * len) / n, ((o + 1) * len + n - 1) / n};
}

void add_adaptive_avg_pooling(Registry& r) {
  OpDef d;
  d.name = "_contrib_AdaptiveAvgPooling2D";
  d.doc = "Average pooling of (N, C, H, W) to output_size (h, w), each output pixel over its share of the input.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "AdaptiveAvgPooling2D");
    const Shape size = rd.get<Shape>("output_size", Shape({}));
    rd.finish();
    BRAID_CHECK(size.ndim() <= 2, "operator AdaptiveAvgPooling2D: output_size must be an int or (height, width); got ",
                size);
    AdaptiveParam p;
    if (size.ndim() >= 1) p.oh = p.ow = size[0];
    if (size.ndim() == 2) p.ow = size[1];
    BRAID_CHECK(p.oh > 0 && p.ow > 0, "operator AdaptiveAvgPooling2D: output_size must be positive; got ", size);
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<AdaptiveParam>(pa);
    if (!in[0].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() == 4, "operator AdaptiveAvgPooling2D: data must be (batch, channels, height, width); got ",
                in[0]);
    merge_shape(out[0], Shape({in[0][0], in[0][1], p.oh, p.ow}), "AdaptiveAvgPooling2D", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<AdaptiveParam>(pa);
    const Shape& s = a.inputs[0].shape;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "AdaptiveAvgPooling2D", {
      const T* x = a.inputs[0].ptr<T>();
      write_with_req(a.outputs[0].ptr<T>(), a.outputs[0].size(), a.req[0], [&](T* y) {
        for_each_plane_pair(s, [&](int64_t pl) {
          for (int64_t i = 0; i < p.oh; ++i) {
            const auto [h0, h1] = adaptive_window(i, p.oh, s[2]);
            for (int64_t j = 0; j < p.ow; ++j) {
              const auto [w0, w1] = adaptive_window(j, p.ow, s[3]);
              double sum = 0;
              for (int64_t yy = h0; yy < h1; ++yy)
                for (int64_t xx = w0; xx < w1; ++xx) sum += x[(pl * s[2] + yy) * s[3] + xx];
              y[(pl * p.oh + i) * p.ow + j] = static_cast<T>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
            }
          }
        });
      });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<AdaptiveParam>(pa);
    const Shape& s = a.inputs[0].shape;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "AdaptiveAvgPooling2D", {
      const T* dy = a.out_grads[0].ptr<T>();
      write_with_req(a.in_grads[0].ptr<T>(), a.inputs[0].size(), a.req[0], [&](T* dx) {
        for_each_plane_pair(s, [&](int64_t pl) {
          std::fill(dx + pl * s[2] * s[3], dx + (pl + 1) * s[2] * s[3], T(0));
          for (int64_t i = 0; i < p.oh; ++i) {
            const auto [h0, h1] = adaptive_window(i, p.oh, s[2]);
            for (int64_t j = 0; j < p.ow; ++j) {
              const auto [w0, w1] = adaptive_window(j, p.ow, s[3]);
              const T g = static_cast<T>(dy[(pl * p.oh + i) * p.ow + j] / static_cast<double>((h1 - h0) * (w1 - w0)));
              for (int64_t yy = h0; yy < h1; ++yy)
                for (int64_t xx = w0; xx < w1; ++xx) dx[(pl * s[2] + yy) * s[3] + xx] += g;
            }
          }
        });
      });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

// ---- BilinearResize2D ----------------------------------------------------------------------

enum class ResizeMode { kSize, kOddScale, kLike, kToEvenDown, kToEvenUp, kToOddDown, kToOddUp };

struct ResizeParam {
  int64_t height = 1, width = 1;
  std::optional<double> scale_h, scale_w;
  ResizeMode mode = ResizeMode::kSize;
  bool align_corners = true;

  /// The output size along an axis of length n (index 0: height, 1: width).
  int64_t out_size(int axis, int64_t n) const {
    const std::optional<double>& scale = axis == 0 ? scale_h : scale_w;
    switch (mode) {
      case ResizeMode::kSize:
        return scale ? static_cast<int64_t>(static_cast<double>(n) * *scale) : (axis == 0 ? height : width);
      case ResizeMode::kOddScale:
        return n % 2 == 0 ? static_cast<int64_t>(static_cast<double>(n) * *scale)
                          : static_cast<int64_t>(static_cast<double>(n - 1) * *scale) + 1;
      case ResizeMode::kToEvenDown:
        return n % 2 == 0 ? n : n - 1;
      case ResizeMode::kToEvenUp:
        return n % 2 == 0 ? n : n + 1;
      case ResizeMode::kToOddDown:
        return n % 2 == 1 ? n : n - 1;
      case ResizeMode::kToOddUp:
        return n % 2 == 1 ? n : n + 1;
      default:
        return n;  // kLike: from the second input
    }
  }
};

/// The two input positions and the weight of the second for output position o along an axis.
struct Tap {
  int64_t i0, i1;
  double w1;
};

Tap resize_tap(int64_t o, int64_t in, int64_t out, bool align_corners) {
  double src;
  if (align_corners)
    src = out > 1 ? static_cast<double>(o) * static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  else
    src = std::max((static_cast<double>(o) + 0.5) * static_cast<double>(in) / static_cast<double>(out) - 0.5, 0.0);
  const auto i0 = std::min(static_cast<int64_t>(src), in - 1);
  return {i0, i0 < in - 1 ? i0 + 1 : i0, src - static_cast<double>(i0)};
}

/// Calls f(input plane offset, output plane offset, input index, output index, weight) for the
/// four taps of every output pixel; planes in parallel.
template <class F>
void for_each_resize_tap(const ResizeParam& p, const Shape& in, const Shape& out, F f) {
  const int64_t h = in[2], w = in[3], oh = out[2], ow = out[3];
  std::vector<Tap> rows(static_cast<size_t>(oh)), cols(static_cast<size_t>(ow));
  for (int64_t i = 0; i < oh; ++i) rows[static_cast<size_t>(i)] = resize_tap(i, h, oh, p.align_corners);
  for (int64_t j = 0; j < ow; ++j) cols[static_cast<size_t>(j)] = resize_tap(j, w, ow, p.align_corners);
  for_each_plane_pair(in, [&](int64_t pl) {
    for (int64_t i = 0; i < oh; ++i) {
      const Tap& ty = rows[static_cast<size_t>(i)];
      for (int64_t j = 0; j < ow; ++j) {
        const Tap& tx = cols[static_cast<size_t>(j)];
        const int64_t o = (pl * oh + i) * ow + j, base = pl * h * w;
        f(o, base + ty.i0 * w + tx.i0, (1 - ty.w1) * (1 - tx.w1));
        f(o, base + ty.i0 * w + tx.i1, (1 - ty.w1) * tx.w1);
        f(o, base + ty.i1 * w + tx.i0, ty.w1 * (1 - tx.w1));
        f(o, base + ty.i1 * w + tx.i1, ty.w1 * tx.w1);
      }
    }
  });
}

std::any parse_resize(const AttrMap& attrs) {
  ParamReader rd(attrs, "BilinearResize2D");
  ResizeParam p;
  p.height = rd.get<int64_t>("height", 1);
  p.width = rd.get<int64_t>("width", 1);
  p.scale_h = rd.get_optional<double>("scale_height");
  p.scale_w = rd.get_optional<double>("scale_width");
  const std::string mode = rd.get_enum(
      "mode", {"size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up"}, "size");
  p.align_corners = rd.get<bool>("align_corners", true);
  rd.finish();
  const std::vector<std::pair<std::string, ResizeMode>> modes = {
      {"size", ResizeMode::kSize},           {"odd_scale", ResizeMode::kOddScale},
      {"like", ResizeMode::kLike},           {"to_even_down", ResizeMode::kToEvenDown},
      {"to_even_up", ResizeMode::kToEvenUp}, {"to_odd_down", ResizeMode::kToOddDown},
      {"to_odd_up", ResizeMode::kToOddUp}};
  for (const auto& [name, m] : modes)
    if (name == mode) p.mode = m;
  BRAID_CHECK(p.mode != ResizeMode::kOddScale || (p.scale_h && p.scale_w),
              "operator BilinearResize2D: mode='odd_scale' needs scale_height and scale_width");
  BRAID_CHECK(p.scale_h.has_value() == p.scale_w.has_value(),
              "operator BilinearResize2D: give both scale_height and scale_width, or neither");
  return std::any(p);
}

void add_bilinear_resize(Registry& r) {
  OpDef d;
  d.name = "_contrib_BilinearResize2D";
  d.doc =
      "Bilinear resizing of (N, C, H, W) to height × width, by scale_height/scale_width, like a second input's "
      "size (mode='like'), or to the nearest even/odd size (mode='to_even_down' ...).";
  d.parse = parse_resize;
  d.list_arguments = [](const std::any& pa) {
    return param<ResizeParam>(pa).mode == ResizeMode::kLike ? std::vector<std::string>{"data", "like"}
                                                            : std::vector<std::string>{"data"};
  };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<ResizeParam>(pa);
    for (const Shape& s : in)
      if (!s.fully_known()) return false;
    BRAID_CHECK(in[0].ndim() == 4, "operator BilinearResize2D: data must be (batch, channels, height, width); got ",
                in[0]);
    int64_t oh = p.out_size(0, in[0][2]), ow = p.out_size(1, in[0][3]);
    if (p.mode == ResizeMode::kLike) {
      BRAID_CHECK(in[1].ndim() == 4, "operator BilinearResize2D: like must be (batch, channels, height, width); got ",
                  in[1]);
      oh = in[1][2], ow = in[1][3];
    }
    BRAID_CHECK(oh > 0 && ow > 0, "operator BilinearResize2D: the output size (", oh, ", ", ow,
                ") must be positive; check height/width or the scales");
    merge_shape(out[0], Shape({in[0][0], in[0][1], oh, ow}), "BilinearResize2D", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "BilinearResize2D", {
      const T* x = a.inputs[0].ptr<T>();
      std::vector<double> y(static_cast<size_t>(a.outputs[0].size()), 0.0);
      for_each_resize_tap(param<ResizeParam>(pa), a.inputs[0].shape, a.outputs[0].shape,
                          [&](int64_t o, int64_t k, double wt) { y[static_cast<size_t>(o)] += wt * x[k]; });
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return static_cast<T>(y[static_cast<size_t>(i)]); });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.in_grads.size() > 1) zero_index_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "BilinearResize2D", {
      const T* dy = a.out_grads[0].ptr<T>();
      std::vector<double> dx(static_cast<size_t>(a.inputs[0].size()), 0.0);
      for_each_resize_tap(param<ResizeParam>(pa), a.inputs[0].shape, a.out_grads[0].shape,
                          [&](int64_t o, int64_t k, double wt) { dx[static_cast<size_t>(k)] += wt * dy[o]; });
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.inputs[0].size(),
                 [&](int64_t i) { return static_cast<T>(dx[static_cast<size_t>(i)]); });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_resize_ops(Registry& r) {
  add_adaptive_avg_pooling(r);
  add_bilinear_resize(r);
}

}  // namespace braid::op::detail
