// Faster R-CNN's region proposal layer (MXNet 1.x's contrib.Proposal, one image, and
// contrib.MultiProposal, a batch), on the CPU. Both run the same steps per image:
//
//  1. anchors: the base box (0, 0, s-1, s-1) of the feature stride s, reshaped for each ratio
//     (MXNet's rounding: w = round(sqrt(floor(s*s / ratio))), h = round(w * ratio)) and scaled by
//     each scale, ratios outermost; shifted by (k*s, j*s) for every feature cell (j, k), and laid
//     out over (h, w, anchor), each taking the foreground score cls_prob[b, A + anchor, j, k];
//  2. each anchor moved by its deltas (bbox_pred[b, 4*anchor .. 4*anchor+3, j, k]: centre and
//     log-size deltas, or with iou_loss corner offsets) and clipped to the image (im_info's
//     height, width); cells beyond the image's extent in the feature map get score -1;
//  3. boxes narrower or lower than rpn_min_size * im_info's scale grow by that size / 2 on every
//     side and get score -1 (MXNet's filtering);
//  4. a stable sort by descending score, the first rpn_pre_nms_top_n boxes (all for <= 0);
//  5. greedy NMS in the pixel (+1) convention, suppressing IoU > threshold, keeping up to
//     rpn_post_nms_top_n boxes, and when fewer survive, the kept boxes repeated cyclically.
//
// The arithmetic is float32 with MXNet's mixed float/double expressions, so that the results
// match MXNet's bit for bit. The gradient is zero, as MXNet's.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "op/common/req_util.h"
#include "op/common/zero_backward.h"
#include "op/contrib/box_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct ProposalParam {
  std::string op;  // for messages: "_contrib_Proposal" or "_contrib_MultiProposal"
  bool multi = false;
  int rpn_pre_nms_top_n = 6000, rpn_post_nms_top_n = 300;
  float threshold = 0.7f;
  int rpn_min_size = 16;
  std::vector<float> scales{4.0f, 8.0f, 16.0f, 32.0f}, ratios{0.5f, 1.0f, 2.0f};
  int feature_stride = 16;
  bool output_score = false, iou_loss = false;
  int64_t num_anchors() const { return static_cast<int64_t>(scales.size() * ratios.size()); }
};

/// A tuple of numbers ("(8, 16, 32)"), `fallback` when the attribute is absent.
std::vector<float> proposal_read_floats(ParamReader& rd, const std::string& key, const std::vector<float>& fallback) {
  const auto d = rd.get<std::vector<double>>(key, std::vector<double>(fallback.begin(), fallback.end()));
  return std::vector<float>(d.begin(), d.end());
}

ProposalParam proposal_parse(const AttrMap& attrs, const std::string& op, bool multi) {
  ParamReader rd(attrs, op);
  ProposalParam p;
  p.op = op;
  p.multi = multi;
  p.rpn_pre_nms_top_n = rd.get<int>("rpn_pre_nms_top_n", p.rpn_pre_nms_top_n);
  p.rpn_post_nms_top_n = rd.get<int>("rpn_post_nms_top_n", p.rpn_post_nms_top_n);
  p.threshold = rd.get<float>("threshold", p.threshold);
  p.rpn_min_size = rd.get<int>("rpn_min_size", p.rpn_min_size);
  p.scales = proposal_read_floats(rd, "scales", p.scales);
  p.ratios = proposal_read_floats(rd, "ratios", p.ratios);
  p.feature_stride = rd.get<int>("feature_stride", p.feature_stride);
  p.output_score = rd.get<bool>("output_score", p.output_score);
  p.iou_loss = rd.get<bool>("iou_loss", p.iou_loss);
  rd.finish();
  BRAID_CHECK(p.rpn_post_nms_top_n >= 0, "operator ", op, ": rpn_post_nms_top_n must be the number of boxes (>= 0) ",
              "to output per image; got ", p.rpn_post_nms_top_n);
  BRAID_CHECK(p.rpn_min_size >= 0, "operator ", op, ": rpn_min_size must be a size in pixels (>= 0); got ",
              p.rpn_min_size);
  BRAID_CHECK(p.feature_stride >= 1, "operator ", op,
              ": feature_stride must be the positive stride of the feature map in image pixels; got ",
              p.feature_stride);
  BRAID_CHECK(!std::isnan(p.threshold), "operator ", op, ": threshold must be an IoU (for example 0.7); got nan");
  for (const auto* list : {&p.scales, &p.ratios}) {
    const char* key = list == &p.scales ? "scales" : "ratios";
    BRAID_CHECK(!list->empty(), "operator ", op, ": ", key, " must hold at least one number, as (8, 16, 32)");
    for (float v : *list)
      BRAID_CHECK(v > 0.0f && std::isfinite(v), "operator ", op, ": every one of ", key,
                  " must be a positive number; got ", v);
  }
  return p;
}

/// Step 1's base anchors, (A, 4) corners, ratios outermost, as MXNet's GenerateAnchors.
std::vector<float> proposal_base_anchors(const ProposalParam& p) {
  std::vector<float> out;
  const float x1 = 0.0f, y1 = 0.0f;
  const auto x2 = static_cast<float>(p.feature_stride - 1.0), y2 = x2;
  const float w = x2 - x1 + 1.0f, h = y2 - y1 + 1.0f;
  const auto x_ctr = static_cast<float>(x1 + 0.5 * (w - 1.0f));
  const auto y_ctr = static_cast<float>(y1 + 0.5 * (h - 1.0f));
  const float size = w * h;
  for (float ratio : p.ratios) {
    for (float scale : p.scales) {
      const float size_ratios = std::floor(size / ratio);
      const float new_w = std::floor(std::sqrt(size_ratios) + 0.5f) * scale;
      const float new_h = std::floor((new_w / scale * ratio) + 0.5f) * scale;
      out.push_back(x_ctr - 0.5f * (new_w - 1.0f));
      out.push_back(y_ctr - 0.5f * (new_h - 1.0f));
      out.push_back(x_ctr + 0.5f * (new_w - 1.0f));
      out.push_back(y_ctr + 0.5f * (new_h - 1.0f));
    }
  }
  return out;
}

/// Scratch space of one image, reused across the images of a batch.
struct ProposalScratch {
  std::vector<float> boxes;    // (count, 5): x1, y1, x2, y2, score
  std::vector<int64_t> order;  // the boxes by descending score
  std::vector<float> sorted;   // (pre, 5)
  std::vector<float> area;
  std::vector<char> suppressed;
  std::vector<int64_t> keep;
};

float proposal_clip(float v, float hi) { return std::max(std::min(v, hi - 1.0f), 0.0f); }

/// Steps 1 to 5 for one image; writes rpn_post_nms_top_n rows of rois (batch index b) and scores.
void proposal_one_image(const ProposalParam& p, const std::vector<float>& anchors, int64_t b, int64_t height,
                        int64_t width, const float* cls, const float* deltas, const float* info, float* rois,
                        float* scores, ProposalScratch& s) {
  const int64_t A = p.num_anchors(), plane = height * width, count = A * plane;
  int64_t pre = p.rpn_pre_nms_top_n > 0 ? p.rpn_pre_nms_top_n : count;
  pre = std::min(pre, count);
  const int64_t post = std::min<int64_t>(p.rpn_post_nms_top_n, pre);
  const float im_height = info[0], im_width = info[1];
  const auto real_height = static_cast<int64_t>(static_cast<int>(im_height / static_cast<float>(p.feature_stride)));
  const auto real_width = static_cast<int64_t>(static_cast<int>(im_width / static_cast<float>(p.feature_stride)));
  BRAID_CHECK(real_height <= height && real_width <= width, "operator ", p.op, ": image ", b, " of im_info (height ",
              im_height, ", width ", im_width, ") spans ", real_height, " x ", real_width, " cells at feature_stride ",
              p.feature_stride, ", more than the feature map's ", height, " x ", width,
              "; give im_info in input-image pixels with the matching feature_stride");

  // Steps 1 and 2: shifted anchors, moved by the deltas and clipped.
  s.boxes.resize(static_cast<size_t>(count * 5));
  for (int64_t j = 0; j < height; ++j) {
    for (int64_t k = 0; k < width; ++k) {
      for (int64_t a = 0; a < A; ++a) {
        float* box = s.boxes.data() + ((j * width + k) * A + a) * 5;
        const float* anc = anchors.data() + a * 4;
        const auto sx = static_cast<float>(k * p.feature_stride), sy = static_cast<float>(j * p.feature_stride);
        const float ax1 = anc[0] + sx, ay1 = anc[1] + sy, ax2 = anc[2] + sx, ay2 = anc[3] + sy;
        const float* d = deltas + (a * 4) * plane + j * width + k;
        const float d0 = d[0], d1 = d[plane], d2 = d[2 * plane], d3 = d[3 * plane];
        float x1, y1, x2, y2;
        if (p.iou_loss) {
          x1 = ax1 + d0, y1 = ay1 + d1, x2 = ax2 + d2, y2 = ay2 + d3;
        } else {
          const auto w = static_cast<float>((ax2 - ax1) + 1.0);
          const auto h = static_cast<float>((ay2 - ay1) + 1.0);
          const auto cx = static_cast<float>(ax1 + 0.5 * (w - 1.0));
          const auto cy = static_cast<float>(ay1 + 0.5 * (h - 1.0));
          const float pcx = d0 * w + cx, pcy = d1 * h + cy;
          const float pw = std::exp(d2) * w, ph = std::exp(d3) * h;
          x1 = static_cast<float>(pcx - 0.5 * (pw - 1.0));
          y1 = static_cast<float>(pcy - 0.5 * (ph - 1.0));
          x2 = static_cast<float>(pcx + 0.5 * (pw - 1.0));
          y2 = static_cast<float>(pcy + 0.5 * (ph - 1.0));
        }
        box[0] = proposal_clip(x1, im_width);
        box[1] = proposal_clip(y1, im_height);
        box[2] = proposal_clip(x2, im_width);
        box[3] = proposal_clip(y2, im_height);
        box[4] = (j >= real_height || k >= real_width) ? -1.0f : cls[(A + a) * plane + j * width + k];
      }
    }
  }

  // Step 3: too small boxes.
  const float min_size = static_cast<float>(p.rpn_min_size) * info[2];
  for (int64_t i = 0; i < count; ++i) {
    float* box = s.boxes.data() + i * 5;
    const float iw = box[2] - box[0] + 1.0f, ih = box[3] - box[1] + 1.0f;
    if (iw < min_size || ih < min_size) {
      box[0] -= min_size / 2;
      box[1] -= min_size / 2;
      box[2] += min_size / 2;
      box[3] += min_size / 2;
      box[4] = -1.0f;
    }
  }

  // Step 4: sort, keep the first `pre`.
  s.order.resize(static_cast<size_t>(count));
  std::iota(s.order.begin(), s.order.end(), int64_t{0});
  const float* bx = s.boxes.data();
  std::stable_sort(s.order.begin(), s.order.end(),
                   [bx](int64_t i, int64_t j) { return bx[i * 5 + 4] > bx[j * 5 + 4]; });
  s.sorted.resize(static_cast<size_t>(pre * 5));
  for (int64_t i = 0; i < pre; ++i) std::copy(bx + s.order[i] * 5, bx + s.order[i] * 5 + 5, s.sorted.begin() + i * 5);

  // Step 5: NMS.
  const float* dets = s.sorted.data();
  s.area.resize(static_cast<size_t>(pre));
  for (int64_t i = 0; i < pre; ++i) s.area[i] = box_pixel_area(dets + i * 5);
  s.suppressed.assign(static_cast<size_t>(pre), 0);
  s.keep.clear();
  for (int64_t i = 0; i < pre && static_cast<int64_t>(s.keep.size()) < post; ++i) {
    if (s.suppressed[i]) continue;
    s.keep.push_back(i);
    for (int64_t j = i + 1; j < pre; ++j) {
      if (s.suppressed[j]) continue;
      const float inter = box_pixel_intersection(dets + i * 5, dets + j * 5);
      const float ovr = inter / (s.area[i] + s.area[j] - inter);
      if (ovr > p.threshold) s.suppressed[j] = 1;
    }
  }

  // The output, the kept boxes repeated cyclically when fewer than rpn_post_nms_top_n.
  const auto kept = static_cast<int64_t>(s.keep.size());
  for (int64_t i = 0; i < p.rpn_post_nms_top_n; ++i) {
    const float* box = dets + s.keep[static_cast<size_t>(i < kept ? i : i % kept)] * 5;
    float* roi = rois + i * 5;
    roi[0] = static_cast<float>(b);
    std::copy(box, box + 4, roi + 1);
    scores[i] = box[4];
  }
}

bool proposal_infer_shape(const ProposalParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  Shape& cls = in[0];
  if (!cls.known() && in[1].known() && in[1].ndim() == 4)
    cls = Shape({in[1][0], in[1][1] > 0 ? in[1][1] / 2 : in[1][1], in[1][2], in[1][3]});
  if (!cls.known()) return false;
  BRAID_CHECK(cls.ndim() == 4, "operator ", p.op, ": cls_prob must be (batch, 2 * anchors, height, width); got ", cls);
  const int64_t A = p.num_anchors();
  if (cls[1] > 0)
    BRAID_CHECK(cls[1] == 2 * A, "operator ", p.op, ": cls_prob has ", cls[1], " channels, but ", p.ratios.size(),
                " ratios x ", p.scales.size(), " scales make ", A, " anchors, which need 2 * ", A, " = ", 2 * A,
                "; give cls_prob (batch, 2 * anchors, height, width) or set scales and ratios to match");
  if (!p.multi && cls[0] > 0)
    BRAID_CHECK(cls[0] == 1, "operator ", p.op, ": takes one image (batch 1); got a batch of ", cls[0],
                "; use contrib.MultiProposal for batches");
  merge_shape(in[1], Shape({cls[0], 4 * A, cls[2], cls[3]}), p.op, "bbox_pred");
  merge_shape(in[2], Shape({cls[0], 3}), p.op, "im_info");
  const int64_t rows = p.multi ? (cls[0] > 0 ? cls[0] * p.rpn_post_nms_top_n : 0) : p.rpn_post_nms_top_n;
  merge_shape(out[0], Shape({rows, 5}), p.op, "output");
  merge_shape(out[1], Shape({rows, 1}), p.op, "score");
  return cls.fully_known() && in[1].fully_known() && in[2].fully_known();
}

void proposal_infer_type(const ProposalParam& p, std::vector<DType>& in, std::vector<DType>& out) {
  static const char* names[] = {"cls_prob", "bbox_pred", "im_info"};
  for (size_t i = 0; i < in.size(); ++i) {
    BRAID_CHECK(in[i] == kDTypeUnknown || in[i] == DType::Float32, "operator ", p.op, ": ", names[i],
                " must be float32, as MXNet's; got ", dtype_name(in[i]), "; cast it with astype('float32')");
    in[i] = DType::Float32;
  }
  for (auto& t : out) t = DType::Float32;
}

void proposal_forward(const ProposalParam& p, const ForwardArgs& a) {
  const Shape& s = a.inputs[0].shape;
  const int64_t n = s[0], height = s[2], width = s[3], A = p.num_anchors(), post = p.rpn_post_nms_top_n;
  const float *cls = a.inputs[0].ptr<float>(), *deltas = a.inputs[1].ptr<float>(), *info = a.inputs[2].ptr<float>();
  std::vector<float> rois(static_cast<size_t>(n * post * 5)), scores(static_cast<size_t>(n * post));
  if (height * width > 0 && post > 0) {
    const std::vector<float> anchors = proposal_base_anchors(p);
    ProposalScratch scratch;
    for (int64_t b = 0; b < n; ++b)
      proposal_one_image(p, anchors, b, height, width, cls + b * 2 * A * height * width,
                         deltas + b * 4 * A * height * width, info + b * 3, rois.data() + b * post * 5,
                         scores.data() + b * post, scratch);
  }
  write_each(a.outputs[0].ptr<float>(), a.req[0], a.outputs[0].size(),
             [&](int64_t i) { return rois[static_cast<size_t>(i)]; });
  write_each(a.outputs[1].ptr<float>(), a.req[1], a.outputs[1].size(),
             [&](int64_t i) { return scores[static_cast<size_t>(i)]; });
}

void add_proposal_op(Registry& r, const std::string& name, bool multi) {
  OpDef d;
  d.name = name;
  d.doc = multi
              ? "Region proposals of Faster R-CNN's RPN for a batch: cls_prob (N, 2A, H, W), bbox_pred (N, 4A, H, W), "
                "im_info (N, 3) -> rois (N * rpn_post_nms_top_n, 5) rows (batch index, x1, y1, x2, y2) and, with "
                "output_score, scores (N * rpn_post_nms_top_n, 1). Zero gradient."
              : "Region proposals of Faster R-CNN's RPN for one image: cls_prob (1, 2A, H, W), bbox_pred (1, 4A, H, "
                "W), im_info (1, 3) -> rois (rpn_post_nms_top_n, 5) rows (0, x1, y1, x2, y2) and, with output_score, "
                "scores (rpn_post_nms_top_n, 1). Zero gradient.";
  d.parse = [name, multi](const AttrMap& attrs) { return std::any(proposal_parse(attrs, name, multi)); };
  d.list_arguments = args({"cls_prob", "bbox_pred", "im_info"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.num_visible_outputs = [](const std::any& pa) { return param<ProposalParam>(pa).output_score ? 2 : 1; };
  d.list_outputs = [](const std::any& pa) {
    if (param<ProposalParam>(pa).output_score) return std::vector<std::string>{"output", "score"};
    return std::vector<std::string>{"output"};
  };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return proposal_infer_shape(param<ProposalParam>(pa), in, out);
  };
  d.infer_type = [](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    proposal_infer_type(param<ProposalParam>(pa), in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    proposal_forward(param<ProposalParam>(pa), a);
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_proposal_ops(Registry& r) {
  add_proposal_op(r, "_contrib_Proposal", false);
  add_proposal_op(r, "_contrib_MultiProposal", true);
}

}  // namespace braid::op::detail
