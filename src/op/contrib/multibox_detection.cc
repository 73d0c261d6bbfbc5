// MXNet 1.x's contrib.MultiBoxDetection on the CPU (SSD's output layer): per anchor the most
// probable non-background class, its box decoded from the anchor and the regression, then a
// per-class (or, with force_suppress, global) non-maximum suppression. MultiBoxPrior and
// MultiBoxTarget are in multibox.cc.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "op/common/req_util.h"
#include "op/common/zero_backward.h"
#include "op/contrib/box_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct MultiBoxDetectionParam {
  bool clip = true, force_suppress = false;
  float threshold = 0.01f, nms_threshold = 0.5f;
  int64_t background_id = 0;  // accepted; as in MXNet, class 0 is always the background
  int64_t nms_topk = -1;
  std::vector<float> variances{0.1f, 0.1f, 0.2f, 0.2f};
};

MultiBoxDetectionParam multibox_detection_parse(const AttrMap& attrs) {
  ParamReader rd(attrs, "MultiBoxDetection");
  MultiBoxDetectionParam p;
  p.clip = rd.get<bool>("clip", p.clip);
  p.threshold = rd.get<float>("threshold", p.threshold);
  p.background_id = rd.get<int64_t>("background_id", p.background_id);
  p.nms_threshold = rd.get<float>("nms_threshold", p.nms_threshold);
  p.force_suppress = rd.get<bool>("force_suppress", p.force_suppress);
  const std::vector<double> v =
      rd.get<std::vector<double>>("variances", std::vector<double>(p.variances.begin(), p.variances.end()));
  p.variances.assign(v.begin(), v.end());
  p.nms_topk = rd.get<int64_t>("nms_topk", p.nms_topk);
  rd.finish();
  BRAID_CHECK(p.variances.size() == 4, "operator MultiBoxDetection: variances must hold 4 numbers (x, y, width, ",
              "height), e.g. variances=(0.1, 0.1, 0.2, 0.2); got ", p.variances.size());
  return p;
}

bool multibox_detection_infer_shape(std::vector<Shape>& in, std::vector<Shape>& out) {
  const Shape &c = in[0], &l = in[1], &a = in[2];
  if (!c.fully_known() || !l.fully_known() || !a.fully_known()) return false;
  BRAID_CHECK(c.ndim() == 3, "operator MultiBoxDetection: cls_prob must be (batch, num_classes, num_anchors); got ", c);
  BRAID_CHECK(a.ndim() == 3 && a[2] == 4 && a[1] > 0,
              "operator MultiBoxDetection: anchor must be (1, num_anchors, 4) with num_anchors > 0; got ", a);
  BRAID_CHECK(c[2] == a[1], "operator MultiBoxDetection: cls_prob ", c, " and anchor ", a,
              " must have the same number of anchors (cls_prob's axis 2, anchor's axis 1)");
  BRAID_CHECK(l.ndim() == 2 && l[0] == c[0] && l[1] == c[2] * 4, "operator MultiBoxDetection: loc_pred must be ",
              "(batch, num_anchors * 4) = (", c[0], ", ", c[2] * 4, "); got ", l);
  merge_shape(out[0], Shape({c[0], a[1], 6}), "MultiBoxDetection", "output");
  return true;
}

/// The box of regression `d` on anchor `a`, in T as MXNet's, written at dst.
template <class T>
void multibox_decode(const T* a, const T* d, const std::vector<float>& v, bool clip, T* dst) {
  const T aw = a[2] - a[0], ah = a[3] - a[1], ax = (a[0] + a[2]) / 2.f, ay = (a[1] + a[3]) / 2.f;
  const T ox = d[0] * v[0] * aw + ax, oy = d[1] * v[1] * ah + ay;
  const T ow = std::exp(d[2] * v[2]) * aw / 2, oh = std::exp(d[3] * v[3]) * ah / 2;
  const T box[4] = {ox - ow, oy - oh, ox + ow, oy + oh};
  for (int i = 0; i < 4; ++i) dst[i] = clip ? std::max(T(0), std::min(T(1), box[i])) : box[i];
}

/// One batch item: prob (classes, n), loc (n * 4), anchors (n * 4); out (n, 6) holds -1 on entry.
template <class T>
void multibox_detection_one(const MultiBoxDetectionParam& p, const T* prob, int64_t classes, const T* loc,
                            const T* anchors, int64_t n, T* out) {
  // Rows [class, score, xmin, ymin, xmax, ymax] of the anchors with a class, in anchor order.
  int64_t valid = 0;
  for (int64_t i = 0; i < n; ++i) {
    T score = -1;
    int64_t id = 0;
    for (int64_t k = 1; k < classes; ++k)
      if (prob[k * n + i] > score) score = prob[k * n + i], id = k;
    if (id > 0 && score < p.threshold) id = 0;
    if (id == 0) continue;
    T* row = out + valid++ * 6;
    row[0] = static_cast<T>(id - 1);
    row[1] = score;
    multibox_decode(anchors + i * 4, loc + i * 4, p.variances, p.clip, row + 2);
  }
  if (valid < 1 || p.nms_threshold <= 0 || p.nms_threshold > 1) return;
  std::vector<int64_t> order(static_cast<size_t>(valid));
  for (int64_t i = 0; i < valid; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return out[x * 6 + 1] > out[y * 6 + 1]; });
  const std::vector<T> rows(out, out + valid * 6);
  int64_t keep = valid;
  if (p.nms_topk > 0 && p.nms_topk < keep) {
    // As MXNet's, the rows past the top k keep their unsorted contents with class -1.
    keep = p.nms_topk;
    for (int64_t i = keep; i < valid; ++i) out[i * 6] = T(-1);
  }
  for (int64_t i = 0; i < keep; ++i) std::copy_n(rows.data() + order[static_cast<size_t>(i)] * 6, 6, out + i * 6);
  // A row suppresses every later row (of its class unless force_suppress) with IoU >= nms_threshold;
  // a suppressed row keeps its numbers with class -1.
  for (int64_t i = 0; i < keep; ++i) {
    T* ri = out + i * 6;
    if (ri[0] < 0) continue;
    for (int64_t j = i + 1; j < keep; ++j) {
      T* rj = out + j * 6;
      if (rj[0] < 0 || !(p.force_suppress || ri[0] == rj[0])) continue;
      const T inter = box_intersection(ri + 2, rj + 2, BoxFormat::Corner);
      const T uni = box_corner_signed_area(ri + 2) + box_corner_signed_area(rj + 2) - inter;
      const T iou = uni <= T(0) ? T(0) : inter / uni;
      if (iou >= p.nms_threshold) rj[0] = T(-1);
    }
  }
}

}  // namespace

void register_multibox_detection_op(Registry& r) {
  OpDef d;
  d.name = "_contrib_MultiBoxDetection";
  d.doc =
      "SSD detections from cls_prob (batch, classes, N), loc_pred (batch, N * 4) and anchor (1, N, 4): output "
      "(batch, N, 6) rows [class - 1, score, xmin, ymin, xmax, ymax] of the anchors whose best non-background class "
      "(class 0 is the background) scores >= threshold, boxes decoded with variances (clipped to [0, 1] with clip), "
      "sorted by score, the first nms_topk kept, then non-maximum suppression at IoU >= nms_threshold within a class "
      "(across classes with force_suppress) setting the class of suppressed rows to -1; -1 rows after. Zero "
      "gradient.";
  d.parse = [](const AttrMap& attrs) { return std::any(multibox_detection_parse(attrs)); };
  d.list_arguments = args({"cls_prob", "loc_pred", "anchor"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return multibox_detection_infer_shape(in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const MultiBoxDetectionParam& p = param<MultiBoxDetectionParam>(pa);
    const Shape& cs = a.inputs[0].shape;
    const int64_t batch = cs[0], classes = cs[1], n = cs[2];
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "MultiBoxDetection", {
      std::vector<T> out(static_cast<size_t>(batch * n * 6), T(-1));
      for (int64_t b = 0; b < batch; ++b)
        multibox_detection_one(p, a.inputs[0].ptr<T>() + b * classes * n, classes, a.inputs[1].ptr<T>() + b * n * 4,
                               a.inputs[2].ptr<T>(), n, out.data() + b * n * 6);
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return out[static_cast<size_t>(i)]; });
    });
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
  r.add_alias("_npx_multibox_detection", "_contrib_MultiBoxDetection");
}

}  // namespace braid::op::detail
