// MXNet 1.x's SSD operators on the CPU: contrib.MultiBoxPrior (anchor boxes of a feature map),
// contrib.MultiBoxTarget (training targets of anchors against ground-truth boxes) and
// contrib.MultiBoxDetection (decoding and non-maximum suppression of predictions). Boxes are
// corners (xmin, ymin, xmax, ymax). As MXNet's, every one of them has a zero gradient.
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

/// A float tuple attribute ("(0.1, 0.2)") as floats.
std::vector<float> multibox_float_tuple(ParamReader& rd, const std::string& key, std::vector<float> fallback) {
  const std::vector<double> defaults(fallback.begin(), fallback.end());
  const std::vector<double> v = rd.get<std::vector<double>>(key, defaults);
  return std::vector<float>(v.begin(), v.end());
}

void multibox_check_variances(const std::vector<float>& v, const char* op) {
  BRAID_CHECK(v.size() == 4, "operator ", op, ": variances must hold 4 numbers (x, y, width, height), e.g. ",
              "variances=(0.1, 0.1, 0.2, 0.2); got ", v.size());
}

/// Zero gradients for every input, reading nothing: MXNet's legacy backward of these ops.
void multibox_zero_gradient(OpDef& d) {
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
}

// ---- MultiBoxPrior ----------------------------------------------------------------------------

struct MultiBoxPriorParam {
  std::vector<float> sizes{1.0f}, ratios{1.0f}, steps{-1.0f, -1.0f}, offsets{0.5f, 0.5f};
  bool clip = false;
  int64_t per_pixel() const { return static_cast<int64_t>(sizes.size() + ratios.size()) - 1; }
};

MultiBoxPriorParam multibox_prior_parse(const AttrMap& attrs) {
  ParamReader rd(attrs, "MultiBoxPrior");
  MultiBoxPriorParam p;
  p.sizes = multibox_float_tuple(rd, "sizes", p.sizes);
  p.ratios = multibox_float_tuple(rd, "ratios", p.ratios);
  p.clip = rd.get<bool>("clip", p.clip);
  p.steps = multibox_float_tuple(rd, "steps", p.steps);
  p.offsets = multibox_float_tuple(rd, "offsets", p.offsets);
  rd.finish();
  BRAID_CHECK(!p.sizes.empty(), "operator MultiBoxPrior: sizes must hold at least one size, e.g. sizes=(0.5, 0.25)");
  BRAID_CHECK(!p.ratios.empty(),
              "operator MultiBoxPrior: ratios must hold at least one ratio, e.g. ratios=(1, 2, 0.5)");
  BRAID_CHECK(p.steps.size() == 2, "operator MultiBoxPrior: steps must hold 2 numbers (step_y, step_x), -1 for ",
              "1/height and 1/width; got ", p.steps.size());
  BRAID_CHECK(p.steps[0] * p.steps[1] >= 0, "operator MultiBoxPrior: steps must give both step_y and step_x, or ",
              "neither (-1, -1); got (", p.steps[0], ", ", p.steps[1], ")");
  BRAID_CHECK(p.offsets.size() == 2, "operator MultiBoxPrior: offsets must hold 2 numbers (y, x) in [0, 1]; got ",
              p.offsets.size());
  for (const float o : p.offsets)
    BRAID_CHECK(o >= 0.0f && o <= 1.0f, "operator MultiBoxPrior: offsets must be in [0, 1] (the anchor centre ",
                "within its cell); got ", o);
  return p;
}

/// The anchors of an H x W map, (H * W * per_pixel, 4), computed in float as MXNet's.
std::vector<float> multibox_prior_compute(const MultiBoxPriorParam& p, int64_t height, int64_t width) {
  float step_y = p.steps[0], step_x = p.steps[1];
  if (step_y <= 0 || step_x <= 0) {
    step_y = 1.0f / static_cast<float>(height);
    step_x = 1.0f / static_cast<float>(width);
  }
  const auto fh = static_cast<float>(height), fw = static_cast<float>(width);
  std::vector<float> out;
  out.reserve(static_cast<size_t>(height * width * p.per_pixel() * 4));
  const auto push = [&](float cx, float cy, float size, float ratio) {
    const float w = size * fh / fw * ratio / 2, h = size / ratio / 2;
    for (const float v : {cx - w, cy - h, cx + w, cy + h})
      out.push_back(p.clip ? std::min(std::max(v, 0.0f), 1.0f) : v);
  };
  for (int64_t r = 0; r < height; ++r) {
    const float cy = (static_cast<float>(r) + p.offsets[0]) * step_y;
    for (int64_t c = 0; c < width; ++c) {
      const float cx = (static_cast<float>(c) + p.offsets[1]) * step_x;
      const float first_ratio = std::sqrt(p.ratios[0]);
      for (const float size : p.sizes) push(cx, cy, size, first_ratio);
      for (size_t j = 1; j < p.ratios.size(); ++j) push(cx, cy, p.sizes[0], std::sqrt(p.ratios[j]));
    }
  }
  return out;
}

void add_multibox_prior(Registry& r) {
  OpDef d;
  d.name = "_contrib_MultiBoxPrior";
  d.doc =
      "Anchor boxes of a feature map data (batch, channel, H, W): output (1, H * W * (len(sizes) + len(ratios) - 1), "
      "4), per pixel the sizes with the first ratio, then the first size with the other ratios, centred at "
      "((x + offsets[1]) * steps[1], (y + offsets[0]) * steps[0]) (steps -1: 1/W, 1/H); clip to [0, 1]. Zero "
      "gradient.";
  d.parse = [](const AttrMap& attrs) { return std::any(multibox_prior_parse(attrs)); };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const Shape& s = in[0];
    if (!s.known()) return false;
    BRAID_CHECK(s.ndim() >= 4, "operator MultiBoxPrior: data must be 4-d (batch, channel, height, width); got ", s);
    if (s[2] == 0 || s[3] == 0) return false;
    const int64_t n = s[2] * s[3] * param<MultiBoxPriorParam>(pa).per_pixel();
    merge_shape(out[0], Shape({1, n, 4}), "MultiBoxPrior", "output");
    return s.fully_known();
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const Shape& s = a.inputs[0].shape;
    const std::vector<float> boxes = multibox_prior_compute(param<MultiBoxPriorParam>(pa), s[2], s[3]);
    BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, "MultiBoxPrior", {
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return static_cast<T>(boxes[static_cast<size_t>(i)]); });
    });
  };
  multibox_zero_gradient(d);
  r.add(std::move(d));
  r.add_alias("_npx_multibox_prior", "_contrib_MultiBoxPrior");
}

// ---- MultiBoxTarget ---------------------------------------------------------------------------

struct MultiBoxTargetParam {
  float overlap_threshold = 0.5f, ignore_label = -1.0f, negative_mining_ratio = -1.0f, negative_mining_thresh = 0.5f;
  int64_t minimum_negative_samples = 0;  // accepted; MXNet's CPU kernel does not use it
  std::vector<float> variances{0.1f, 0.1f, 0.2f, 0.2f};
};

MultiBoxTargetParam multibox_target_parse(const AttrMap& attrs) {
  ParamReader rd(attrs, "MultiBoxTarget");
  MultiBoxTargetParam p;
  p.overlap_threshold = rd.get<float>("overlap_threshold", p.overlap_threshold);
  p.ignore_label = rd.get<float>("ignore_label", p.ignore_label);
  p.negative_mining_ratio = rd.get<float>("negative_mining_ratio", p.negative_mining_ratio);
  p.negative_mining_thresh = rd.get<float>("negative_mining_thresh", p.negative_mining_thresh);
  p.minimum_negative_samples = rd.get<int64_t>("minimum_negative_samples", p.minimum_negative_samples);
  p.variances = multibox_float_tuple(rd, "variances", p.variances);
  rd.finish();
  multibox_check_variances(p.variances, "MultiBoxTarget");
  BRAID_CHECK(p.negative_mining_ratio <= 0 || p.negative_mining_thresh > 0,
              "operator MultiBoxTarget: negative_mining_thresh must be > 0 when negative mining is on ",
              "(negative_mining_ratio > 0); got ", p.negative_mining_thresh);
  return p;
}

bool multibox_target_infer_shape(std::vector<Shape>& in, std::vector<Shape>& out) {
  const Shape &a = in[0], &l = in[1], &c = in[2];
  if (!a.fully_known() || !l.fully_known() || !c.fully_known()) return false;
  BRAID_CHECK(a.ndim() == 3 && a[0] == 1 && a[2] == 4, "operator MultiBoxTarget: anchor must be (1, num_anchors, 4), ",
              "shared by the batch; got ", a);
  BRAID_CHECK(a[1] > 0, "operator MultiBoxTarget: anchor must hold at least one box; got ", a);
  BRAID_CHECK(l.ndim() == 3 && l[1] > 0 && l[2] >= 5, "operator MultiBoxTarget: label must be (batch, num_labels, ",
              ">= 5) rows [class, xmin, ymin, xmax, ymax, ...] padded with -1 rows; got ", l);
  BRAID_CHECK(c.ndim() == 3 && c[2] == a[1] && c[0] == l[0], "operator MultiBoxTarget: cls_pred must be (batch, ",
              "num_classes, num_anchors) = (", l[0], ", num_classes, ", a[1], "); got ", c);
  merge_shape(out[0], Shape({l[0], a[1] * 4}), "MultiBoxTarget", "loc_target");
  merge_shape(out[1], Shape({l[0], a[1] * 4}), "MultiBoxTarget", "loc_mask");
  merge_shape(out[2], Shape({l[0], a[1]}), "MultiBoxTarget", "cls_target");
  return true;
}

/// The regression target of anchor `a` for ground truth `g` (corners), in float as MXNet's.
template <class T>
void multibox_encode(const T* a, const T* g, const std::vector<float>& v, T* dst) {
  const float al = a[0], at = a[1], ar = a[2], ab = a[3], gl = g[0], gt = g[1], gr = g[2], gb = g[3];
  const float aw = ar - al, ah = ab - at, ax = (al + ar) * 0.5f, ay = (at + ab) * 0.5f;
  const float gw = gr - gl, gh = gb - gt, gx = (gl + gr) * 0.5f, gy = (gt + gb) * 0.5f;
  dst[0] = static_cast<T>((gx - ax) / aw / v[0]);
  dst[1] = static_cast<T>((gy - ay) / ah / v[1]);
  dst[2] = static_cast<T>(std::log(gw / aw) / v[2]);
  dst[3] = static_cast<T>(std::log(gh / ah) / v[3]);
}

/// One batch item: anchors (n, 4), labels (m, width), cls_pred (classes, n); fills loc (n * 4),
/// mask (n * 4) and cls (n), which hold 0, 0 and ignore_label on entry.
template <class T>
void multibox_target_one(const MultiBoxTargetParam& p, const T* anchors, int64_t n, const T* labels, int64_t m,
                         int64_t width, const T* cls_pred, int64_t classes, T* loc, T* mask, T* cls) {
  int64_t valid = 0;  // labels up to the first padding row
  for (; valid < m; ++valid) {
    const T* row = labels + valid * width;
    if (static_cast<float>(row[0]) != -1.0f) continue;
    for (int k = 1; k < 5; ++k)
      BRAID_CHECK(static_cast<float>(row[k]) == -1.0f, "operator MultiBoxTarget: label row ", valid,
                  " has class -1 (padding) but coordinate ", k - 1, " is ", row[k], "; padding rows must be all -1");
    break;
  }
  if (valid == 0) return;
  // IoU of every anchor with every valid label, in T as MXNet's (0 where the union is 0).
  std::vector<float> iou(static_cast<size_t>(n * valid));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < valid; ++k) {
      const T *a = anchors + j * 4, *g = labels + k * width + 1;
      const T inter = box_intersection(a, g, BoxFormat::Corner);
      const T uni = box_corner_signed_area(a) + box_corner_signed_area(g) - inter;
      iou[static_cast<size_t>(j * valid + k)] = static_cast<float>(uni == T(0) ? T(0) : inter / uni);
    }
  const auto at = [&](int64_t j, int64_t k) { return iou[static_cast<size_t>(j * valid + k)]; };
  std::vector<char> gt_done(static_cast<size_t>(valid), 0), flag(static_cast<size_t>(n), -1);  // flag 1: positive
  std::vector<std::pair<float, int64_t>> best(static_cast<size_t>(n), {-1.0f, -1});
  int64_t positives = 0;
  // Bipartite stage: repeatedly the largest remaining overlap pairs its anchor and label.
  for (int64_t round = 0; round < valid; ++round) {
    int64_t ba = -1, bg = -1;
    float top = 1e-6f;
    for (int64_t j = 0; j < n; ++j) {
      if (flag[static_cast<size_t>(j)] == 1) continue;
      for (int64_t k = 0; k < valid; ++k)
        if (!gt_done[static_cast<size_t>(k)] && at(j, k) > top) ba = j, bg = k, top = at(j, k);
    }
    if (ba < 0) break;
    best[static_cast<size_t>(ba)] = {top, bg};
    gt_done[static_cast<size_t>(bg)] = 1;
    flag[static_cast<size_t>(ba)] = 1;
    ++positives;
  }
  // The best label of an anchor (first of equal overlaps).
  const auto best_of = [&](int64_t j) {
    std::pair<float, int64_t> b{-1.0f, -1};
    for (int64_t k = 0; k < valid; ++k)
      if (at(j, k) > b.first) b = {at(j, k), k};
    return b;
  };
  if (p.overlap_threshold > 0) {  // threshold stage
    for (int64_t j = 0; j < n; ++j) {
      if (flag[static_cast<size_t>(j)] == 1) continue;
      const auto b = best_of(j);
      if (b.second < 0) continue;
      best[static_cast<size_t>(j)] = b;
      if (b.first > p.overlap_threshold) flag[static_cast<size_t>(j)] = 1, ++positives;
    }
  }
  if (p.negative_mining_ratio > 0) {
    auto negatives = static_cast<int64_t>(static_cast<float>(positives) * p.negative_mining_ratio);
    negatives = std::min(negatives, n - positives);
    if (negatives > 0) {
      // Candidates: unmatched anchors overlapping less than negative_mining_thresh, the lowest
      // background probability (softmax over cls_pred's classes) first, ties in anchor order.
      std::vector<std::pair<float, int64_t>> cand;
      for (int64_t j = 0; j < n; ++j) {
        if (flag[static_cast<size_t>(j)] == 1) continue;
        auto& b = best[static_cast<size_t>(j)];
        if (b.first < 0) {
          const auto bb = best_of(j);
          if (bb.second >= 0) b = bb;
        }
        if (!(b.first < p.negative_mining_thresh)) continue;
        T top = cls_pred[j];
        for (int64_t k = 1; k < classes; ++k) top = std::max(top, cls_pred[j + n * k]);
        T sum = 0;
        for (int64_t k = 0; k < classes; ++k) sum += std::exp(cls_pred[j + n * k] - top);
        cand.emplace_back(static_cast<float>(std::exp(cls_pred[j] - top) / sum), j);
      }
      BRAID_CHECK(static_cast<int64_t>(cand.size()) >= negatives, "operator MultiBoxTarget: negative mining wants ",
                  negatives, " negatives but only ", cand.size(), " anchors overlap less than negative_mining_thresh ",
                  p.negative_mining_thresh, "; raise negative_mining_thresh or lower negative_mining_ratio");
      std::stable_sort(cand.begin(), cand.end(), [](const auto& x, const auto& y) { return -x.first > -y.first; });
      for (int64_t i = 0; i < negatives; ++i) flag[static_cast<size_t>(cand[static_cast<size_t>(i)].second)] = 0;
    }
  } else {
    for (auto& f : flag)
      if (f != 1) f = 0;
  }
  for (int64_t j = 0; j < n; ++j) {
    const char f = flag[static_cast<size_t>(j)];
    if (f == 1) {
      const T* g = labels + best[static_cast<size_t>(j)].second * width;
      cls[j] = g[0] + T(1);  // 0 is the background
      std::fill(mask + j * 4, mask + j * 4 + 4, T(1));
      multibox_encode(anchors + j * 4, g + 1, p.variances, loc + j * 4);
    } else if (f == 0) {
      cls[j] = T(0);
    }
  }
}

void add_multibox_target(Registry& r) {
  OpDef d;
  d.name = "_contrib_MultiBoxTarget";
  d.doc =
      "SSD training targets of anchor (1, N, 4) against label (batch, M, >= 5) rows [class, xmin, ymin, xmax, ymax] "
      "(-1 rows pad) given cls_pred (batch, classes, N): each label takes its best anchor (bipartite, largest "
      "overlaps first), then every other anchor whose best IoU exceeds overlap_threshold; with negative_mining_ratio "
      "> 0 the ratio times as many unmatched anchors below negative_mining_thresh with the lowest background "
      "probability are negatives, else all the others. Outputs loc_target (batch, N * 4), loc_mask (batch, N * 4), "
      "cls_target (batch, N): class + 1 for positives, 0 for negatives, ignore_label otherwise. Zero gradient.";
  d.parse = [](const AttrMap& attrs) { return std::any(multibox_target_parse(attrs)); };
  d.list_arguments = args({"anchor", "label", "cls_pred"});
  d.num_outputs = [](const std::any&) { return 3; };
  d.list_outputs = [](const std::any&) { return std::vector<std::string>{"loc_target", "loc_mask", "cls_target"}; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return multibox_target_infer_shape(in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const MultiBoxTargetParam& p = param<MultiBoxTargetParam>(pa);
    const Shape &ls = a.inputs[1].shape, &cs = a.inputs[2].shape;
    const int64_t n = a.inputs[0].shape[1], batch = ls[0], m = ls[1], width = ls[2], classes = cs[1];
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "MultiBoxTarget", {
      std::vector<T> loc(static_cast<size_t>(batch * n * 4), T(0)), mask(loc.size(), T(0));
      std::vector<T> cls(static_cast<size_t>(batch * n), static_cast<T>(p.ignore_label));
      for (int64_t b = 0; b < batch; ++b)
        multibox_target_one(p, a.inputs[0].ptr<T>(), n, a.inputs[1].ptr<T>() + b * m * width, m, width,
                            a.inputs[2].ptr<T>() + b * classes * n, classes, loc.data() + b * n * 4,
                            mask.data() + b * n * 4, cls.data() + b * n);
      const std::vector<T>* res[3] = {&loc, &mask, &cls};
      for (int o = 0; o < 3; ++o)
        write_each(a.outputs[o].ptr<T>(), a.req[o], a.outputs[o].size(),
                   [&](int64_t i) { return (*res[o])[static_cast<size_t>(i)]; });
    });
  };
  multibox_zero_gradient(d);
  r.add(std::move(d));
  r.add_alias("_npx_multibox_target", "_contrib_MultiBoxTarget");
}

}  // namespace

void register_multibox_ops(Registry& r) {
  add_multibox_prior(r);
  add_multibox_target(r);
  register_multibox_detection_op(r);
}

}  // namespace braid::op::detail
