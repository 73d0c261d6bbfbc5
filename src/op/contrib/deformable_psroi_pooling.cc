// contrib.DeformablePSROIPooling (Deformable ConvNets' R-FCN head), as MXNet's: position-sensitive
// average pooling of each region of interest into pooled_size × pooled_size bins, bin (ph, pw) of
// output channel k reading input channel (k·group_size + gh)·group_size + gw, each bin shifted by
// a learned offset.
//
//   data (N, output_dim·group_size², H, W), rois (R, 5) as (image, x1, y1, x2, y2) in input-image
//   pixels, trans (R, 2·classes, part_size, part_size) unless no_trans → (R, output_dim, P, P)
//
// A bin averages sample_per_part² bilinear samples taken from its top-left corner, moved by
// trans · trans_std · the region's size (trans channels 2·class and 2·class + 1: x and y; class =
// k / (output_dim / classes)); samples more than half a pixel outside the map are left out. A
// hidden second output counts each bin's samples. Gradients: data and trans; rois get zeros.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

constexpr const char* kPsRoi = "_contrib_DeformablePSROIPooling";

struct PsRoiParam {
  double spatial_scale = 1, trans_std = 0;
  int64_t output_dim = 0, group_size = 0, pooled_size = 0, part_size = 0, sample_per_part = 1;
  bool no_trans = false;
};

PsRoiParam parse_psroi(const AttrMap& attrs) {
  ParamReader rd(attrs, kPsRoi);
  PsRoiParam p;
  p.spatial_scale = rd.get<double>("spatial_scale");
  p.output_dim = rd.get<int64_t>("output_dim");
  p.group_size = rd.get<int64_t>("group_size");
  p.pooled_size = rd.get<int64_t>("pooled_size");
  p.part_size = rd.get<int64_t>("part_size", 0);
  p.sample_per_part = rd.get<int64_t>("sample_per_part", 1);
  p.trans_std = rd.get<double>("trans_std", 0.0);
  p.no_trans = rd.get<bool>("no_trans", false);
  rd.finish();
  if (p.part_size == 0) p.part_size = p.pooled_size;
  BRAID_CHECK(p.spatial_scale > 0 && p.spatial_scale <= 1, "operator ", kPsRoi,
              ": spatial_scale must be in (0, 1]; got ", p.spatial_scale);
  BRAID_CHECK(p.trans_std >= 0 && p.trans_std <= 1, "operator ", kPsRoi, ": trans_std must be in [0, 1]; got ",
              p.trans_std);
  for (auto [v, what] : {std::pair{p.output_dim, "output_dim"},
                         {p.group_size, "group_size"},
                         {p.pooled_size, "pooled_size"},
                         {p.part_size, "part_size"},
                         {p.sample_per_part, "sample_per_part"}})
    BRAID_CHECK(v >= 1, "operator ", kPsRoi, ": ", what, " must be positive; got ", v);
  return p;
}

// One output bin's geometry: where its samples start, their spacing, the input channel and the
// trans entries it reads.
template <class T>
struct Bin {
  int64_t image = 0, channel = 0, trans_x = -1;  // trans_x: index of the x shift, the y shift a part plane later
  T w0 = 0, h0 = 0, step_w = 0, step_h = 0, roi_w = 0, roi_h = 0;
};

template <class T>
Bin<T> bin_of(const PsRoiParam& p, const TBlob& data, const T* rois, const T* trans, int64_t classes, int64_t index) {
  const int64_t ps = p.pooled_size, pw = index % ps, ph = index / ps % ps, k = index / (ps * ps) % p.output_dim,
                r = index / (ps * ps * p.output_dim);
  const T* roi = rois + r * 5;
  Bin<T> b;
  b.image = static_cast<int64_t>(roi[0]);
  BRAID_CHECK(b.image >= 0 && b.image < data.shape[0], "operator ", kPsRoi, ": roi ", r, " names image ", roi[0],
              " but data holds ", data.shape[0]);
  const T scale = T(p.spatial_scale);
  const T x1 = std::round(roi[1]) * scale - T(0.5), y1 = std::round(roi[2]) * scale - T(0.5);
  const T x2 = (std::round(roi[3]) + 1) * scale - T(0.5), y2 = (std::round(roi[4]) + 1) * scale - T(0.5);
  b.roi_w = std::max(x2 - x1, T(0.1));
  b.roi_h = std::max(y2 - y1, T(0.1));
  const T bin_w = b.roi_w / T(ps), bin_h = b.roi_h / T(ps);
  b.step_w = bin_w / T(p.sample_per_part);
  b.step_h = bin_h / T(p.sample_per_part);
  b.w0 = T(pw) * bin_w + x1;
  b.h0 = T(ph) * bin_h + y1;
  if (trans) {
    const auto part_h = static_cast<int64_t>(std::floor(T(ph) / T(ps) * T(p.part_size)));
    const auto part_w = static_cast<int64_t>(std::floor(T(pw) / T(ps) * T(p.part_size)));
    const int64_t cls = k / (p.output_dim / classes);
    b.trans_x = (((r * classes + cls) * 2) * p.part_size + part_h) * p.part_size + part_w;
    b.w0 += trans[b.trans_x] * T(p.trans_std) * b.roi_w;
    b.h0 += trans[b.trans_x + p.part_size * p.part_size] * T(p.trans_std) * b.roi_h;
  }
  const int64_t gw = std::clamp(pw * p.group_size / ps, int64_t{0}, p.group_size - 1);
  const int64_t gh = std::clamp(ph * p.group_size / ps, int64_t{0}, p.group_size - 1);
  b.channel = (k * p.group_size + gh) * p.group_size + gw;
  return b;
}

// Calls fn(w, h) for each sample of the bin inside the map, clamped onto it; returns their number.
template <class T, class Fn>
int64_t for_each_sample(const PsRoiParam& p, const Bin<T>& b, int64_t height, int64_t width, Fn fn) {
  int64_t count = 0;
  for (int64_t ih = 0; ih < p.sample_per_part; ++ih)
    for (int64_t iw = 0; iw < p.sample_per_part; ++iw) {
      T w = b.w0 + T(iw) * b.step_w, h = b.h0 + T(ih) * b.step_h;
      if (w < T(-0.5) || w > T(width) - T(0.5) || h < T(-0.5) || h > T(height) - T(0.5)) continue;
      fn(std::clamp(w, T(0), T(width - 1)), std::clamp(h, T(0), T(height - 1)));
      ++count;
    }
  return count;
}

int64_t classes_of(const PsRoiParam& p, const std::vector<TBlob>& inputs) {
  return p.no_trans ? 1 : inputs[2].shape[1] / 2;
}

template <class T>
void psroi_forward(const PsRoiParam& p, const ForwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const int64_t height = data.shape[2], width = data.shape[3], classes = classes_of(p, a.inputs);
  const T *x = data.ptr<T>(), *rois = a.inputs[1].ptr<T>(), *trans = p.no_trans ? nullptr : a.inputs[2].ptr<T>();
  const int64_t total = a.outputs[0].size();
  std::vector<T> out(static_cast<size_t>(total)), counts(static_cast<size_t>(total));
#pragma omp parallel for schedule(static) if (total > 256)
  for (int64_t i = 0; i < total; ++i) {
    const Bin<T> b = bin_of<T>(p, data, rois, trans, classes, i);
    const T* plane = x + (b.image * data.shape[1] + b.channel) * height * width;
    T sum = 0;
    const int64_t n = for_each_sample<T>(p, b, height, width, [&](T w, T h) {
      const auto xl = static_cast<int64_t>(std::floor(w)), xh = static_cast<int64_t>(std::ceil(w));
      const auto yl = static_cast<int64_t>(std::floor(h)), yh = static_cast<int64_t>(std::ceil(h));
      const T dx = w - T(xl), dy = h - T(yl);
      sum += (1 - dx) * (1 - dy) * plane[yl * width + xl] + (1 - dx) * dy * plane[yh * width + xl] +
             dx * (1 - dy) * plane[yl * width + xh] + dx * dy * plane[yh * width + xh];
    });
    out[static_cast<size_t>(i)] = n == 0 ? T(0) : sum / T(n);
    counts[static_cast<size_t>(i)] = T(n);
  }
  write_each(a.outputs[0].ptr<T>(), a.req[0], total, [&out](int64_t i) { return out[static_cast<size_t>(i)]; });
  write_each(a.outputs[1].ptr<T>(), a.req[1], total, [&counts](int64_t i) { return counts[static_cast<size_t>(i)]; });
}

template <class T>
void psroi_backward(const PsRoiParam& p, const BackwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const int64_t height = data.shape[2], width = data.shape[3], classes = classes_of(p, a.inputs);
  const T *x = data.ptr<T>(), *rois = a.inputs[1].ptr<T>(), *trans = p.no_trans ? nullptr : a.inputs[2].ptr<T>();
  const T* gy = a.out_grads[0].ptr<T>();
  std::vector<T> grad_data(static_cast<size_t>(data.size())),
      grad_trans(p.no_trans ? 0 : static_cast<size_t>(a.inputs[2].size()));
  const int64_t total = a.out_grads[0].size();
  for (int64_t i = 0; i < total; ++i) {
    const Bin<T> b = bin_of<T>(p, data, rois, trans, classes, i);
    const int64_t base = (b.image * data.shape[1] + b.channel) * height * width;
    const T* plane = x + base;
    int64_t n = for_each_sample<T>(p, b, height, width, [](T, T) {});
    if (n == 0) continue;
    const T g = gy[i] / T(n);
    for_each_sample<T>(p, b, height, width, [&](T w, T h) {
      const auto xl = static_cast<int64_t>(std::floor(w)), xh = static_cast<int64_t>(std::ceil(w));
      const auto yl = static_cast<int64_t>(std::floor(h)), yh = static_cast<int64_t>(std::ceil(h));
      const T dx = w - T(xl), dy = h - T(yl);
      grad_data[static_cast<size_t>(base + yl * width + xl)] += (1 - dx) * (1 - dy) * g;
      grad_data[static_cast<size_t>(base + yh * width + xl)] += (1 - dx) * dy * g;
      grad_data[static_cast<size_t>(base + yl * width + xh)] += dx * (1 - dy) * g;
      grad_data[static_cast<size_t>(base + yh * width + xh)] += dx * dy * g;
      if (!trans) return;
      const T u00 = plane[yl * width + xl], u01 = plane[yh * width + xl], u10 = plane[yl * width + xh],
              u11 = plane[yh * width + xh];
      const T along_x = u11 * dy + u10 * (1 - dy) - u01 * dy - u00 * (1 - dy);
      const T along_y = u11 * dx + u01 * (1 - dx) - u10 * dx - u00 * (1 - dx);
      grad_trans[static_cast<size_t>(b.trans_x)] += along_x * T(p.trans_std) * g * b.roi_w;
      grad_trans[static_cast<size_t>(b.trans_x + p.part_size * p.part_size)] += along_y * T(p.trans_std) * g * b.roi_h;
    });
  }
  const auto put = [&a](size_t k, const std::vector<T>& v) {
    if (a.req[k] == OpReq::Null) return;
    write_each(a.in_grads[k].ptr<T>(), a.req[k], a.in_grads[k].size(),
               [&v](int64_t j) { return v.empty() ? T(0) : v[static_cast<size_t>(j)]; });
  };
  put(0, grad_data);
  put(1, {});  // rois
  if (!p.no_trans) put(2, grad_trans);
}

}  // namespace

void register_deformable_psroi_pooling_op(Registry& r) {
  OpDef d;
  d.name = kPsRoi;
  d.doc = "Position-sensitive average pooling of regions of interest into bins shifted by learned offsets.";
  d.parse = [](const AttrMap& attrs) { return std::any(parse_psroi(attrs)); };
  d.list_arguments = [](const std::any& pa) {
    return param<PsRoiParam>(pa).no_trans ? std::vector<std::string>{"data", "rois"}
                                          : std::vector<std::string>{"data", "rois", "trans"};
  };
  d.num_outputs = [](const std::any&) { return 2; };
  d.num_visible_outputs = [](const std::any&) { return 1; };
  d.list_outputs = args({"output"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<PsRoiParam>(pa);
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() == 4 && in[0][1] == p.output_dim * p.group_size * p.group_size, "operator ", kPsRoi,
                ": data must be (N, output_dim * group_size^2 = ", p.output_dim * p.group_size * p.group_size,
                ", H, W); got ", in[0]);
    BRAID_CHECK(in[1].ndim() == 2 && in[1][1] == 5, "operator ", kPsRoi,
                ": rois must be (R, 5): image index, x1, y1, x2, y2; got ", in[1]);
    const Shape pooled({in[1][0], p.output_dim, p.pooled_size, p.pooled_size});
    if (!p.no_trans) {
      if (!in[2].fully_known()) return false;
      BRAID_CHECK(in[2].ndim() == 4 && in[2][0] == in[1][0] && in[2][1] % 2 == 0 && in[2][1] > 0 &&
                      p.output_dim % (in[2][1] / 2) == 0 && in[2][2] == p.part_size && in[2][3] == p.part_size,
                  "operator ", kPsRoi, ": trans must be (R, 2 * classes, part_size, part_size) with classes dividing ",
                  "output_dim; got ", in[2]);
    }
    merge_shape(out[0], pooled, kPsRoi, "output");
    merge_shape(out[1], pooled, kPsRoi, "top_count");
    return true;
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kPsRoi, { psroi_forward<T>(param<PsRoiParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kPsRoi, { psroi_backward<T>(param<PsRoiParam>(pa), a); });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
