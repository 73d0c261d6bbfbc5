// Region-of-interest pooling (MXNet 1.x): ROIPooling (Fast R-CNN's max pooling over a grid of
// bins of each box), contrib.ROIAlign (Mask R-CNN's average of bilinear samples in each bin), its
// rotated-box twin contrib.RROIAlign and contrib.PSROIPooling (R-FCN's position-sensitive average
// pooling).
// rois (R, 5) rows are (batch index, x1, y1, x2, y2) in input-image coordinates, scaled by
// spatial_scale onto the feature map; the output is (R, C, pooled_h, pooled_w). A negative batch
// index gives zeros. The boxes get no gradient.
#include <cmath>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "op/tensor/index_util.h"
#include "roi_bilinear.h"

namespace braid::op::detail {
namespace {

struct RoiParam {
  Shape pooled;  // (pooled_h, pooled_w)
  double scale = 1;
  int64_t sample_ratio = -1;  // ROIAlign: samples per bin side; <= 0: ceil(bin size)
  bool position_sensitive = false, aligned = false;
  bool rotated = false;  // RROIAlign: rows (batch index, center x, center y, w, h, angle in degrees)
  const char* op = "ROIPooling";
  int64_t box_columns() const { return rotated ? 6 : 5; }
};

RoiParam read_roi_param(ParamReader& rd, const char* op) {
  RoiParam p;
  p.op = op;
  p.pooled = rd.get<Shape>("pooled_size");
  p.scale = rd.get<double>("spatial_scale");
  BRAID_CHECK(p.pooled.ndim() == 2 && p.pooled[0] > 0 && p.pooled[1] > 0, "operator ", op,
              ": pooled_size must be (height, width), both positive; got ", p.pooled);
  BRAID_CHECK(p.scale > 0, "operator ", op, ": spatial_scale must be positive; got ", p.scale);
  return p;
}

/// Sizes of one call: data (N, C, H, W), R boxes, output channels.
struct RoiGeom {
  int64_t n, c, h, w, rois, out_c, ph, pw;
  RoiGeom(const RoiParam& p, const Shape& data, const Shape& rois_shape)
      : n(data[0]), c(data[1]), h(data[2]), w(data[3]), rois(rois_shape[0]), ph(p.pooled[0]), pw(p.pooled[1]) {
    out_c = p.position_sensitive ? c / (ph * pw) : c;
  }
  int64_t bins() const { return ph * pw; }
};

bool infer_roi_shape(const RoiParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  if (!in[0].fully_known() || !in[1].fully_known()) return false;
  BRAID_CHECK(in[0].ndim() == 4, "operator ", p.op, ": data must be (batch, channels, height, width); got ", in[0]);
  BRAID_CHECK(in[1].ndim() == 2 && in[1][1] == p.box_columns(), "operator ", p.op, ": rois must be (boxes, ",
              p.box_columns(), ") rows of ",
              p.rotated ? "(batch index, center x, center y, width, height, angle)" : "(batch index, x1, y1, x2, y2)",
              "; got ", in[1]);
  const RoiGeom g(p, in[0], in[1]);
  BRAID_CHECK(!p.position_sensitive || g.c % g.bins() == 0, "operator ", p.op, ": position_sensitive needs channels (",
              g.c, ") divisible by the bins of pooled_size ", p.pooled);
  for (auto& o : out) merge_shape(o, Shape({g.rois, g.out_c, g.ph, g.pw}), p.op, "output");
  return true;
}

// ---- ROIPooling ----------------------------------------------------------------------------

/// The max of each bin and where it came from (flat index in data, -1 for an empty bin).
template <class T>
void roi_pool_forward(const RoiParam& p, const TBlob& data, const TBlob& rois, std::vector<T>& out,
                      std::vector<int64_t>& argmax) {
  const RoiGeom g(p, data.shape, rois.shape);
  const T *x = data.ptr<T>(), *box = rois.ptr<T>();
  out.assign(static_cast<size_t>(g.rois * g.c * g.bins()), T(0));
  argmax.assign(out.size(), -1);
  for (int64_t r = 0; r < g.rois; ++r) {
    const T* b = box + r * 5;
    const auto batch = static_cast<int64_t>(b[0]);
    if (batch < 0 || batch >= g.n) continue;
    const auto x1 = static_cast<int64_t>(std::round(b[1] * p.scale)),
               y1 = static_cast<int64_t>(std::round(b[2] * p.scale));
    const auto x2 = static_cast<int64_t>(std::round(b[3] * p.scale)),
               y2 = static_cast<int64_t>(std::round(b[4] * p.scale));
    const double bin_h = static_cast<double>(std::max<int64_t>(y2 - y1 + 1, 1)) / static_cast<double>(g.ph);
    const double bin_w = static_cast<double>(std::max<int64_t>(x2 - x1 + 1, 1)) / static_cast<double>(g.pw);
    for (int64_t i = 0; i < g.ph; ++i)
      for (int64_t j = 0; j < g.pw; ++j) {
        auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
        const int64_t hs = clip(static_cast<int64_t>(std::floor(static_cast<double>(i) * bin_h)) + y1, g.h);
        const int64_t he = clip(static_cast<int64_t>(std::ceil(static_cast<double>(i + 1) * bin_h)) + y1, g.h);
        const int64_t ws = clip(static_cast<int64_t>(std::floor(static_cast<double>(j) * bin_w)) + x1, g.w);
        const int64_t we = clip(static_cast<int64_t>(std::ceil(static_cast<double>(j + 1) * bin_w)) + x1, g.w);
        for (int64_t ch = 0; ch < g.c; ++ch) {
          const auto o = static_cast<size_t>(((r * g.c + ch) * g.ph + i) * g.pw + j);
          const int64_t plane = (batch * g.c + ch) * g.h * g.w;
          for (int64_t y = hs; y < he; ++y)
            for (int64_t xx = ws; xx < we; ++xx) {
              const int64_t k = plane + y * g.w + xx;
              if (argmax[o] < 0 || x[k] > out[o]) out[o] = x[k], argmax[o] = k;
            }
        }
      }
  }
}

void add_roi_pooling(Registry& r) {
  OpDef d;
  d.name = "ROIPooling";
  d.doc =
      "Max pooling of each box of rois (batch index, x1, y1, x2, y2) over a pooled_size grid of bins "
      "(Fast R-CNN).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "ROIPooling");
    const RoiParam p = read_roi_param(rd, "ROIPooling");
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data", "rois"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_roi_shape(param<RoiParam>(pa), in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "ROIPooling", {
      std::vector<T> out;
      std::vector<int64_t> argmax;
      roi_pool_forward(param<RoiParam>(pa), a.inputs[0], a.inputs[1], out, argmax);
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return out[static_cast<size_t>(i)]; });
    });
  };
  // The maxima's positions are found again (cheaper to keep than a hidden output of indices).
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    zero_index_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "ROIPooling", {
      std::vector<T> out;
      std::vector<int64_t> argmax;
      roi_pool_forward(param<RoiParam>(pa), a.inputs[0], a.inputs[1], out, argmax);
      const T* dy = a.out_grads[0].ptr<T>();
      write_with_req(a.in_grads[0].ptr<T>(), a.inputs[0].size(), a.req[0], [&](T* dx) {
        std::fill(dx, dx + a.inputs[0].size(), T(0));
        for (size_t o = 0; o < argmax.size(); ++o)
          if (argmax[o] >= 0) dx[argmax[o]] += dy[o];
      });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

// ---- ROIAlign -------------------------------------------------------------------------------

/// Kernels of an op (data, rois) whose output elements are weighted sums of data's elements, the
/// terms listed by terms(param, data shape, boxes, number of boxes, emit(output index, data index,
/// weight)): forward sums, backward scatters the output gradient; the boxes get none.
template <class Terms>
Kernels weighted_sum_kernels(const char* op, Terms terms) {
  Kernels k;
  k.forward = [op, terms](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, op, {
      const T* x = a.inputs[0].ptr<T>();
      std::vector<double> out(static_cast<size_t>(a.outputs[0].size()), 0.0);
      terms(pa, a.inputs[0].shape, a.inputs[1].ptr<T>(), a.inputs[1].shape[0],
            [&](int64_t o, int64_t i, double wt) { out[static_cast<size_t>(o)] += wt * x[i]; });
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return static_cast<T>(out[static_cast<size_t>(i)]); });
    });
  };
  k.backward = [op, terms](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    zero_index_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, op, {
      const T* dy = a.out_grads[0].ptr<T>();
      std::vector<double> dx(static_cast<size_t>(a.inputs[0].size()), 0.0);
      terms(pa, a.inputs[0].shape, a.inputs[1].ptr<T>(), a.inputs[1].shape[0],
            [&](int64_t o, int64_t i, double wt) { dx[static_cast<size_t>(i)] += wt * dy[o]; });
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.inputs[0].size(),
                 [&](int64_t i) { return static_cast<T>(dx[static_cast<size_t>(i)]); });
    });
  };
  return k;
}

/// A box on the feature map: its bins' grid starts at (y0, x0) and spans h × w in the box's own
/// frame, which is turned by the angle whose cos and sin are given about (cy, cx).
struct BoxFrame {
  double y0, x0, h, w, cos = 1, sin = 0, cy = 0, cx = 0;
};

template <class T>
BoxFrame box_frame(const RoiParam& p, const T* b) {
  BoxFrame f{};
  if (p.rotated) {
    f.cx = b[1] * p.scale, f.cy = b[2] * p.scale;
    f.w = std::max(b[3] * p.scale, 1.0), f.h = std::max(b[4] * p.scale, 1.0);
    f.y0 = -f.h / 2, f.x0 = -f.w / 2;
    const double theta = static_cast<double>(b[5]) * M_PI / 180.0;
    f.cos = std::cos(theta), f.sin = std::sin(theta);
    return f;
  }
  const double off = p.aligned ? 0.5 : 0.0;
  f.x0 = b[1] * p.scale - off, f.y0 = b[2] * p.scale - off;
  f.w = b[3] * p.scale - off - f.x0, f.h = b[4] * p.scale - off - f.y0;
  if (!p.aligned) f.w = std::max(f.w, 1.0), f.h = std::max(f.h, 1.0);
  return f;
}

/// Calls f(output index, input index, weight) for every sample of every bin of every box.
template <class T, class F>
void for_each_roi_sample(const RoiParam& p, const RoiGeom& g, const T* box, F f) {
  for (int64_t r = 0; r < g.rois; ++r) {
    const T* b = box + r * p.box_columns();
    const auto batch = static_cast<int64_t>(b[0]);
    if (batch < 0 || batch >= g.n) continue;
    const BoxFrame fr = box_frame(p, b);
    const double bin_h = fr.h / static_cast<double>(g.ph), bin_w = fr.w / static_cast<double>(g.pw);
    const int64_t grid_h = p.sample_ratio > 0 ? p.sample_ratio : static_cast<int64_t>(std::ceil(bin_h));
    const int64_t grid_w = p.sample_ratio > 0 ? p.sample_ratio : static_cast<int64_t>(std::ceil(bin_w));
    const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
    for (int64_t ch = 0; ch < g.out_c; ++ch)
      for (int64_t i = 0; i < g.ph; ++i)
        for (int64_t j = 0; j < g.pw; ++j) {
          const int64_t c_in = p.position_sensitive ? (ch * g.ph + i) * g.pw + j : ch;
          const int64_t out = ((r * g.out_c + ch) * g.ph + i) * g.pw + j, plane = (batch * g.c + c_in) * g.h * g.w;
          for (int64_t iy = 0; iy < grid_h; ++iy) {
            const double yy = fr.y0 + static_cast<double>(i) * bin_h +
                              (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              const double xx = fr.x0 + static_cast<double>(j) * bin_w +
                                (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
              const double x = xx * fr.cos + yy * fr.sin + fr.cx, y = yy * fr.cos - xx * fr.sin + fr.cy;
              roi_bilinear(y, x, g.h, g.w, [&](int64_t k, double wt) { f(out, plane + k, wt / count); });
            }
          }
        }
  }
}

void add_roi_align_op(Registry& r, const char* name, std::any (*parse)(const AttrMap&), const char* doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = parse;
  d.list_arguments = args({"data", "rois"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_roi_shape(param<RoiParam>(pa), in, out);
  };
  d.cpu =
      weighted_sum_kernels(name, [](const std::any& pa, const Shape& data, const auto* box, int64_t rois, auto&& emit) {
        const auto& p = param<RoiParam>(pa);
        for_each_roi_sample(p, RoiGeom(p, data, Shape({rois, p.box_columns()})), box, emit);
      });
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

void add_roi_align(Registry& r) {
  add_roi_align_op(
      r, "_contrib_ROIAlign",
      [](const AttrMap& attrs) {
        ParamReader rd(attrs, "ROIAlign");
        RoiParam p = read_roi_param(rd, "ROIAlign");
        p.sample_ratio = rd.get<int64_t>("sample_ratio", -1);
        p.position_sensitive = rd.get<bool>("position_sensitive", false);
        p.aligned = rd.get<bool>("aligned", false);
        rd.finish();
        return std::any(p);
      },
      "Average of bilinear samples in each bin of a pooled_size grid over each box of rois (Mask R-CNN); "
      "position_sensitive takes bin (i, j) from its own group of channels.");
  add_roi_align_op(
      r, "_contrib_RROIAlign",
      [](const AttrMap& attrs) {
        ParamReader rd(attrs, "RROIAlign");
        RoiParam p = read_roi_param(rd, "RROIAlign");
        p.sample_ratio = rd.get<int64_t>("sampling_ratio", -1);
        p.rotated = true;
        rd.finish();
        return std::any(p);
      },
      "ROIAlign over rotated boxes: rois rows are (batch index, center x, center y, width, height, angle in "
      "degrees, counter-clockwise); the average of bilinear samples in each bin of the turned grid.");
}

// ---- PSROIPooling ----------------------------------------------------------------------------

struct PsRoiParam {
  double scale = 1;
  int64_t output_dim = 0, pooled = 0, group = 0;
};

/// Calls f(output index, input index, 1 / bin area) for every pixel of every bin: bin (i, j) of
/// output channel c averages input channel (c·group + gi)·group + gj, (gi, gj) its group cell.
template <class T, class F>
void for_each_psroi_pixel(const PsRoiParam& p, const Shape& data, const T* box, int64_t rois, F f) {
  const int64_t n = data[0], h = data[2], w = data[3], k = p.pooled;
  for (int64_t r = 0; r < rois; ++r) {
    const T* b = box + r * 5;
    const auto batch = static_cast<int64_t>(b[0]);
    if (batch < 0 || batch >= n) continue;
    const double x1 = std::round(static_cast<double>(b[1])) * p.scale,
                 y1 = std::round(static_cast<double>(b[2])) * p.scale;
    const double x2 = (std::round(static_cast<double>(b[3])) + 1) * p.scale;
    const double y2 = (std::round(static_cast<double>(b[4])) + 1) * p.scale;
    const double bin_w = std::max(x2 - x1, 0.1) / static_cast<double>(k),
                 bin_h = std::max(y2 - y1, 0.1) / static_cast<double>(k);
    for (int64_t c = 0; c < p.output_dim; ++c)
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < k; ++j) {
          auto clip = [](double v, int64_t hi) { return std::min(std::max<int64_t>(static_cast<int64_t>(v), 0), hi); };
          const int64_t hs = clip(std::floor(static_cast<double>(i) * bin_h + y1), h);
          const int64_t he = clip(std::ceil(static_cast<double>(i + 1) * bin_h + y1), h);
          const int64_t ws = clip(std::floor(static_cast<double>(j) * bin_w + x1), w);
          const int64_t we = clip(std::ceil(static_cast<double>(j + 1) * bin_w + x1), w);
          if (he <= hs || we <= ws) continue;
          const int64_t gi = std::min(i * p.group / k, p.group - 1), gj = std::min(j * p.group / k, p.group - 1);
          const int64_t plane = (batch * data[1] + (c * p.group + gi) * p.group + gj) * h * w;
          const int64_t out = ((r * p.output_dim + c) * k + i) * k + j;
          const double inv_area = 1.0 / static_cast<double>((he - hs) * (we - ws));
          for (int64_t y = hs; y < he; ++y)
            for (int64_t x = ws; x < we; ++x) f(out, plane + y * w + x, inv_area);
        }
  }
}

void add_psroi_pooling(Registry& r) {
  OpDef d;
  d.name = "_contrib_PSROIPooling";
  d.doc =
      "Position-sensitive average pooling of each box (R-FCN): bin (i, j) of output channel c reads its own "
      "channel of a group_size² grid of channel groups.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "PSROIPooling");
    PsRoiParam p;
    p.scale = rd.get<double>("spatial_scale");
    p.output_dim = rd.get<int64_t>("output_dim");
    p.pooled = rd.get<int64_t>("pooled_size");
    p.group = rd.get<int64_t>("group_size", 0);
    rd.finish();
    if (p.group == 0) p.group = p.pooled;
    BRAID_CHECK(p.scale > 0 && p.output_dim > 0 && p.pooled > 0 && p.group > 0,
                "operator PSROIPooling: "
                "spatial_scale, output_dim, pooled_size and group_size must be positive");
    return std::any(p);
  };
  d.list_arguments = args({"data", "rois"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<PsRoiParam>(pa);
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() == 4 && in[0][1] == p.output_dim * p.group * p.group,
                "operator PSROIPooling: data must "
                "be (batch, output_dim·group_size², height, width) = (?, ",
                p.output_dim * p.group * p.group, ", ?, ?); got ", in[0]);
    BRAID_CHECK(in[1].ndim() == 2 && in[1][1] == 5, "operator PSROIPooling: rois must be (boxes, 5); got ", in[1]);
    merge_shape(out[0], Shape({in[1][0], p.output_dim, p.pooled, p.pooled}), "PSROIPooling", "output");
    return true;
  };
  d.cpu = weighted_sum_kernels("PSROIPooling",
                               [](const std::any& pa, const Shape& data, const auto* box, int64_t rois, auto&& emit) {
                                 for_each_psroi_pixel(param<PsRoiParam>(pa), data, box, rois, emit);
                               });
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_roi_ops(Registry& r) {
  add_roi_pooling(r);
  add_roi_align(r);
  add_psroi_pooling(r);
}

}  // namespace braid::op::detail
