// Bounding-box overlap and non-maximum suppression (MXNet 1.x's contrib.box_iou and
// contrib.box_nms, as used by GluonCV's SSD, Faster R-CNN and YOLO). The encoders and the
// matching are in box_codec.cc; the box geometry in box_util.h.
//
// box_nms works on rows of W numbers (..., N, W), each holding a score, four coordinates and
// optionally a class id; every leading axis is a batch axis. Per batch, the rows whose score is
// above valid_thresh (and whose class is not background_id) are sorted by descending score (equal
// scores keep their order), the first topk are kept, and going down that list a row suppresses
// every later row of the same class (any class with force_suppress) whose IoU with it is above
// overlap_thresh. The survivors are written first, in that order, the other rows are all -1. A
// hidden second output (..., N, 1) holds the flat input row each output row came from (-1 for
// none), by which the backward copies each output row's gradient back to its input row.
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

// ---- box_iou ----------------------------------------------------------------------------------

struct BoxIouParam {
  BoxFormat format = BoxFormat::Corner;
};

void box_iou_check(const Shape& s, const char* what) {
  BRAID_CHECK(s.ndim() >= 2 && s.back() == 4, "operator box_iou: ", what,
              " must hold boxes of 4 numbers along its last axis, with at least 2 axes (..., 4); got ", s);
}

/// The boxes (..., 4) one side would need, given the other side's rank and the output.
Shape box_iou_other_side(const Shape& out, int known_ndim, bool left) {
  const int lead = out.ndim() - (known_ndim - 1);  // leading axes of the unknown side
  std::vector<int64_t> dims;
  if (left)
    dims.assign(out.dims().begin(), out.dims().begin() + lead);
  else
    dims.assign(out.dims().end() - lead, out.dims().end());
  dims.push_back(4);
  return Shape(dims);
}

bool box_iou_infer_shape(std::vector<Shape>& in, std::vector<Shape>& out) {
  Shape &lhs = in[0], &rhs = in[1];
  // One side and the output give the other side.
  if (out[0].known() && lhs.known() && !rhs.known() && lhs.ndim() >= 2 && out[0].ndim() >= lhs.ndim())
    rhs = box_iou_other_side(out[0], lhs.ndim(), false);
  if (out[0].known() && rhs.known() && !lhs.known() && rhs.ndim() >= 2 && out[0].ndim() >= rhs.ndim())
    lhs = box_iou_other_side(out[0], rhs.ndim(), true);
  if (!lhs.known() || !rhs.known()) return false;
  box_iou_check(lhs, "lhs");
  box_iou_check(rhs, "rhs");
  std::vector<int64_t> dims(lhs.dims().begin(), lhs.dims().end() - 1);
  dims.insert(dims.end(), rhs.dims().begin(), rhs.dims().end() - 1);
  merge_shape(out[0], Shape(dims), "box_iou", "output");
  return lhs.fully_known() && rhs.fully_known();
}

void add_box_iou(Registry& r) {
  OpDef d;
  d.name = "_contrib_box_iou";
  d.doc =
      "Intersection over union of every box of lhs (..., 4) with every box of rhs (..., 4): output "
      "lhs.shape[:-1] + rhs.shape[:-1]; format 'corner' (xmin, ymin, xmax, ymax) or 'center' (x, y, width, "
      "height). Zero gradient, as MXNet's.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "box_iou");
    BoxIouParam p;
    p.format = read_box_format(rd, "format", BoxFormat::Corner);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"lhs", "rhs"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return box_iou_infer_shape(in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const BoxFormat f = param<BoxIouParam>(pa).format;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "box_iou", {
      const T *lhs = a.inputs[0].ptr<T>(), *rhs = a.inputs[1].ptr<T>();
      const int64_t nr = a.inputs[1].size() / 4;
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(), [&](int64_t i) {
        const T *l = lhs + i / nr * 4, *rt = rhs + i % nr * 4;
        const T inter = box_intersection(l, rt, f);
        if (inter <= T(0)) return T(0);
        return inter / (box_area(l, f) + box_area(rt, f) - inter);
      });
    });
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

// ---- box_nms ----------------------------------------------------------------------------------

struct BoxNmsParam {
  float overlap_thresh = 0.5f, valid_thresh = 0.0f;
  int64_t topk = -1, coord_start = 2, score_index = 1, id_index = -1, background_id = -1;
  bool force_suppress = false;
  BoxFormat in_format = BoxFormat::Corner, out_format = BoxFormat::Corner;
  bool has_id() const { return id_index >= 0; }
  bool in_coords(int64_t column) const { return column >= coord_start && column <= coord_start + 3; }
};

BoxNmsParam box_nms_parse(const AttrMap& attrs) {
  ParamReader rd(attrs, "box_nms");
  BoxNmsParam p;
  p.overlap_thresh = rd.get<float>("overlap_thresh", p.overlap_thresh);
  p.valid_thresh = rd.get<float>("valid_thresh", p.valid_thresh);
  p.topk = rd.get<int64_t>("topk", p.topk);
  p.coord_start = rd.get<int64_t>("coord_start", p.coord_start);
  p.score_index = rd.get<int64_t>("score_index", p.score_index);
  p.id_index = rd.get<int64_t>("id_index", p.id_index);
  p.background_id = rd.get<int64_t>("background_id", p.background_id);
  p.force_suppress = rd.get<bool>("force_suppress", p.force_suppress);
  p.in_format = read_box_format(rd, "in_format", BoxFormat::Corner);
  p.out_format = read_box_format(rd, "out_format", BoxFormat::Corner);
  rd.finish();
  BRAID_CHECK(p.coord_start >= 0, "operator box_nms: coord_start must be the column (>= 0) of the first of the ",
              "4 coordinates; got ", p.coord_start);
  BRAID_CHECK(p.score_index >= 0, "operator box_nms: score_index must be the column (>= 0) of the score; got ",
              p.score_index);
  BRAID_CHECK(!p.in_coords(p.score_index), "operator box_nms: score_index ", p.score_index,
              " falls among the coordinates (columns ", p.coord_start, " to ", p.coord_start + 3,
              "); give the score's own column");
  if (p.has_id()) {
    BRAID_CHECK(!p.in_coords(p.id_index), "operator box_nms: id_index ", p.id_index,
                " falls among the coordinates (columns ", p.coord_start, " to ", p.coord_start + 3,
                "); give the class id's own column, or -1 for none");
    BRAID_CHECK(p.id_index != p.score_index, "operator box_nms: id_index and score_index are both ", p.id_index,
                "; give the class id its own column, or id_index=-1 for none");
  }
  return p;
}

bool box_nms_infer_shape(const BoxNmsParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  merge_shape(in[0], out[0], "box_nms", "data");
  if (!in[0].known()) return false;
  const Shape& s = in[0];
  BRAID_CHECK(s.ndim() >= 2, "operator box_nms: data must be (..., boxes, box width) with at least 2 axes; got ", s);
  const int64_t w = s.back();
  if (w > 0) {
    const int64_t need = std::max<int64_t>({p.coord_start + 4, p.score_index + 1, p.id_index + 1, p.has_id() ? 6 : 5});
    BRAID_CHECK(w >= need, "operator box_nms: rows of ", w, " numbers cannot hold the score (column ", p.score_index,
                "), the coordinates (columns ", p.coord_start, " to ", p.coord_start + 3, ")",
                p.has_id() ? " and the class id (column " + std::to_string(p.id_index) + ")" : std::string(),
                "; the last axis of data needs at least ", need, " numbers (set coord_start, score_index, id_index)");
  }
  merge_shape(out[0], s, "box_nms", "output");
  Shape rows = s;
  rows[s.ndim() - 1] = 1;
  merge_shape(out[1], rows, "box_nms", "the hidden output of row indices");
  return s.fully_known();
}

/// A box's coordinates converted in place between formats; like MXNet's, a box whose first
/// coordinate is negative (the -1 rows) is left as it is.
template <class T>
void box_nms_convert(T* b, BoxFormat to) {
  if (b[0] < T(0)) return;
  if (to == BoxFormat::Center) {
    const T l = b[0], t = b[1], rt = b[2], bt = b[3];
    b[0] = (l + rt) / T(2), b[1] = (t + bt) / T(2), b[2] = rt - l, b[3] = bt - t;
  } else {
    const T x = b[0], y = b[1], hw = b[2] / T(2), hh = b[3] / T(2);
    b[0] = x - hw, b[1] = y - hh, b[2] = x + hw, b[3] = y + hh;
  }
}

/// box_nms on data `x` of shape `s`: the output rows and, per output row, its input row.
template <class T>
void box_nms_compute(const BoxNmsParam& p, const Shape& s, const T* x, std::vector<T>& out, std::vector<T>& from) {
  const int64_t n = s[s.ndim() - 2], w = s.back(), batches = s.prod(0, s.ndim() - 2);
  const int64_t topk = p.topk < 0 ? n : std::min(n, p.topk);
  if (topk < 1) {  // topk=0: MXNet hands the input on, each row from itself
    out.assign(x, x + s.size());
    from.resize(static_cast<size_t>(batches * n));
    std::iota(from.begin(), from.end(), T(0));
    return;
  }
  out.assign(static_cast<size_t>(s.size()), T(-1));
  from.assign(static_cast<size_t>(batches * n), T(-1));
  const auto score = [&](int64_t row) { return x[row * w + p.score_index]; };
  const auto box = [&](int64_t row) { return x + row * w + p.coord_start; };
  // The class of a row: its id truncated toward zero (MXNet compares them as ints).
  const auto cls = [&](int64_t row) { return std::trunc(static_cast<double>(x[row * w + p.id_index])); };
  std::vector<int64_t> rows;
  std::vector<T> areas;
  std::vector<char> alive;
  for (int64_t b = 0; b < batches; ++b) {
    rows.clear();
    for (int64_t row = b * n; row < (b + 1) * n; ++row) {
      if (!(score(row) > static_cast<T>(p.valid_thresh))) continue;
      if (p.has_id() && x[row * w + p.id_index] == static_cast<T>(p.background_id)) continue;
      rows.push_back(row);
    }
    std::stable_sort(rows.begin(), rows.end(), [&](int64_t i, int64_t j) { return score(i) > score(j); });
    if (static_cast<int64_t>(rows.size()) > topk) rows.resize(static_cast<size_t>(topk));
    const size_t k = rows.size();
    areas.resize(k);
    for (size_t i = 0; i < k; ++i) areas[i] = box_area(box(rows[i]), p.in_format);
    alive.assign(k, 1);
    for (size_t i = 0; i < k; ++i) {
      if (!alive[i]) continue;
      for (size_t j = i + 1; j < k; ++j) {
        if (!alive[j]) continue;
        if (!p.force_suppress && p.has_id() && cls(rows[i]) != cls(rows[j])) continue;
        const T inter = box_intersection(box(rows[i]), box(rows[j]), p.in_format);
        const T iou = inter / (areas[i] + areas[j] - inter);
        if (iou > static_cast<T>(p.overlap_thresh)) alive[j] = 0;
      }
    }
    int64_t count = b * n;
    for (size_t i = 0; i < k; ++i) {
      if (!alive[i]) continue;
      std::copy(x + rows[i] * w, x + (rows[i] + 1) * w, out.begin() + count * w);
      from[static_cast<size_t>(count++)] = static_cast<T>(rows[i]);
    }
  }
  if (p.in_format != p.out_format)
    for (int64_t row = 0; row < batches * n; ++row) box_nms_convert(out.data() + row * w + p.coord_start, p.out_format);
}

void add_box_nms(Registry& r) {
  OpDef d;
  d.name = "_contrib_box_nms";
  d.doc =
      "Non-maximum suppression of rows (..., N, W) = [id, score, x1, y1, x2, y2, ...] per batch: rows scored above "
      "valid_thresh (and not of class background_id), sorted by descending score, the first topk, drop the later "
      "rows of the same class (any class with force_suppress) overlapping an earlier kept row by IoU > "
      "overlap_thresh; kept rows first, -1 rows after. The gradient goes back to the kept rows.";
  d.parse = [](const AttrMap& attrs) { return std::any(box_nms_parse(attrs)); };
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.num_visible_outputs = [](const std::any&) { return 1; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return box_nms_infer_shape(param<BoxNmsParam>(pa), in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "box_nms", {
      std::vector<T> out, from;
      box_nms_compute(param<BoxNmsParam>(pa), a.inputs[0].shape, a.inputs[0].ptr<T>(), out, from);
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return out[static_cast<size_t>(i)]; });
      write_each(a.outputs[1].ptr<T>(), a.req[1], a.outputs[1].size(),
                 [&](int64_t i) { return from[static_cast<size_t>(i)]; });
    });
  };
  // Each output row's gradient goes to the input row it came from; the other input rows get 0.
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const TBlob& dy = a.out_grads[0];
    const int64_t w = dy.shape.back(), rows = w > 0 ? dy.size() / w : 0;
    BRAID_REAL_TYPE_SWITCH(dy.dtype, T, "box_nms", {
      const T *g = dy.ptr<T>(), *from = a.outputs[1].ptr<T>();
      write_with_req(a.in_grads[0].ptr<T>(), dy.size(), a.req[0], [&](T* dx) {
        std::fill(dx, dx + dy.size(), T(0));
        for (int64_t i = 0; i < rows; ++i) {
          if (!(from[i] >= T(0) && from[i] < static_cast<T>(rows))) continue;
          const auto src = static_cast<int64_t>(from[i]);
          std::copy(g + i * w, g + (i + 1) * w, dx + src * w);
        }
      });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, true}; };
  r.add(std::move(d));
  r.add_alias("_contrib_box_non_maximum_suppression", "_contrib_box_nms");
}

}  // namespace

void register_bounding_box_ops(Registry& r) {
  add_box_iou(r);
  add_box_nms(r);
  register_box_codec_ops(r);
}

}  // namespace braid::op::detail
