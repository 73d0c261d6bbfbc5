// contrib.mrcnn_mask_target (Mask R-CNN's mask-head targets; MXNet has it on GPUs only, here on the
// CPU): for every sampled region of interest, its matched ground-truth mask cut out by ROIAlign
// and the one-hot of its class, each repeated over the classes.
//
//   rois (B, N, 4) as (x1, y1, x2, y2), gt_masks (B, M, H, W), matches (B, N) indices into the M
//   masks, cls_targets (B, N) classes → mask_targets and mask_cls, both (B, N, C, mh, mw)
//
// ROIAlign as MXNet's kernel: bins of the region sampled on a sample_ratio² grid (adaptive when
// -1), bilinear samples clamped onto the mask, regions at least 1 × 1 unless `aligned` (then
// half-pixel centres, Detectron2's). No gradient, as in MXNet.
#include <algorithm>
#include <cmath>
#include <vector>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "roi_bilinear.h"

namespace braid::op::detail {
namespace {

constexpr const char* kMaskTarget = "_contrib_mrcnn_mask_target";

struct MaskTargetParam {
  int64_t num_rois = 0, num_classes = 0, sample_ratio = 2;
  Shape mask_size;
  bool aligned = false;
};

// The mask of one region: mh × mw bins averaged over their sample grid.
template <class T>
void align_region(const MaskTargetParam& p, const T* roi, const T* mask, int64_t height, int64_t width, T* out) {
  const T shift = p.aligned ? T(0.5) : T(0);
  const T x1 = roi[0] - shift, y1 = roi[1] - shift;
  T roi_w = roi[2] - shift - x1, roi_h = roi[3] - shift - y1;
  if (!p.aligned) roi_w = std::max(roi_w, T(1)), roi_h = std::max(roi_h, T(1));
  const int64_t mh = p.mask_size[0], mw = p.mask_size[1];
  const T bin_h = roi_h / T(mh), bin_w = roi_w / T(mw);
  const auto grid_h = p.sample_ratio > 0 ? p.sample_ratio : static_cast<int64_t>(std::ceil(roi_h / T(mh)));
  const auto grid_w = p.sample_ratio > 0 ? p.sample_ratio : static_cast<int64_t>(std::ceil(roi_w / T(mw)));
  const T count = T(grid_h * grid_w);
  for (int64_t ph = 0; ph < mh; ++ph)
    for (int64_t pw = 0; pw < mw; ++pw) {
      T sum = 0;
      for (int64_t iy = 0; iy < grid_h; ++iy)
        for (int64_t ix = 0; ix < grid_w; ++ix)
          roi_bilinear(double(y1 + T(ph) * bin_h + (T(iy) + T(0.5)) * bin_h / T(grid_h)),
                       double(x1 + T(pw) * bin_w + (T(ix) + T(0.5)) * bin_w / T(grid_w)), height, width,
                       [&](int64_t at, double weight) { sum += T(weight) * mask[at]; });
      out[ph * mw + pw] = count > 0 ? sum / count : T(0);
    }
}

}  // namespace

void register_mrcnn_mask_target_op(Registry& r) {
  OpDef d;
  d.name = kMaskTarget;
  d.doc = "Mask R-CNN's mask targets: each region's matched ground-truth mask by ROIAlign, and its class one-hot.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, kMaskTarget);
    MaskTargetParam p;
    p.num_rois = rd.get<int64_t>("num_rois");
    p.num_classes = rd.get<int64_t>("num_classes");
    p.mask_size = rd.get<Shape>("mask_size");
    p.sample_ratio = rd.get<int64_t>("sample_ratio", 2);
    p.aligned = rd.get<bool>("aligned", false);
    rd.finish();
    BRAID_CHECK(p.mask_size.ndim() == 2 && p.mask_size[0] > 0 && p.mask_size[1] > 0, "operator ", kMaskTarget,
                ": mask_size must be (h, w), both positive; got ", p.mask_size);
    BRAID_CHECK(p.num_rois > 0 && p.num_classes > 0, "operator ", kMaskTarget,
                ": num_rois and num_classes must be positive; got ", p.num_rois, " and ", p.num_classes);
    return std::any(p);
  };
  d.list_arguments = args({"rois", "gt_masks", "matches", "cls_targets"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<MaskTargetParam>(pa);
    if (!all_known(in)) return false;
    const int64_t b = in[0].ndim() == 3 ? in[0][0] : -1;
    BRAID_CHECK(in[0].ndim() == 3 && in[0][1] == p.num_rois && in[0][2] == 4, "operator ", kMaskTarget,
                ": rois must be (batch, num_rois = ", p.num_rois, ", 4); got ", in[0]);
    BRAID_CHECK(in[1].ndim() == 4 && in[1][0] == b, "operator ", kMaskTarget, ": gt_masks must be (", b,
                ", masks, height, width); got ", in[1]);
    for (size_t k : {2, 3})
      BRAID_CHECK(in[k] == Shape({b, p.num_rois}), "operator ", kMaskTarget, ": ", k == 2 ? "matches" : "cls_targets",
                  " must be (", b, ", ", p.num_rois, "); got ", in[k]);
    const Shape o({b, p.num_rois, p.num_classes, p.mask_size[0], p.mask_size[1]});
    merge_shape(out[0], o, kMaskTarget, "mask_targets");
    merge_shape(out[1], o, kMaskTarget, "mask_cls");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = out[1] = in[1];
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<MaskTargetParam>(pa);
    const Shape& ms = a.inputs[1].shape;
    const int64_t batch = ms[0], masks = ms[1], height = ms[2], width = ms[3];
    const int64_t vol = p.mask_size[0] * p.mask_size[1];
    BRAID_REAL_TYPE_SWITCH(a.inputs[1].dtype, T, kMaskTarget, {
      std::vector<T> region(static_cast<size_t>(vol));
      const T *rois = a.inputs[0].ptr<T>(), *gt = a.inputs[1].ptr<T>();
      const T *matches = a.inputs[2].ptr<T>(), *classes = a.inputs[3].ptr<T>();
      T *targets = a.outputs[0].ptr<T>(), *one_hot = a.outputs[1].ptr<T>();
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t n = 0; n < p.num_rois; ++n) {
          const int64_t at = b * p.num_rois + n;
          const auto match = static_cast<int64_t>(matches[at]);
          BRAID_CHECK(match >= 0 && match < masks, "operator ", kMaskTarget, ": matches[", b, ", ", n,
                      "] = ", matches[at], " is not one of the ", masks, " ground-truth masks");
          align_region<T>(p, rois + at * 4, gt + (b * masks + match) * height * width, height, width, region.data());
          for (int64_t c = 0; c < p.num_classes; ++c) {
            const int64_t base = (at * p.num_classes + c) * vol;
            std::copy(region.begin(), region.end(), targets + base);
            std::fill(one_hot + base, one_hot + base + vol, T(classes[at] == T(c) ? 1 : 0));
          }
        }
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
