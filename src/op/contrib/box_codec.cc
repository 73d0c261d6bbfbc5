// Training targets of detectors (MXNet 1.x's contrib.box_encode, contrib.box_decode and
// contrib.bipartite_matching, as used by GluonCV): boxes as offsets of their anchors' centers
// normalized by the anchors' sizes, log size ratios, and the greedy one-to-one matching of rows to
// columns of a score matrix. MXNet gives all three zero gradients; so does Braid.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "braid/base/np_shape.h"
#include "op/common/req_util.h"
#include "op/common/zero_backward.h"
#include "op/contrib/box_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

void box_codec_zero_gradient(OpDef& d) {
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
}

// ---- bipartite_matching -------------------------------------------------------------------------

struct BoxMatchParam {
  bool is_ascend = false;
  float threshold = 0;
  int64_t topk = -1;
};

bool box_match_infer_shape(std::vector<Shape>& in, std::vector<Shape>& out) {
  // (..., N) and (..., M) give the scores (..., N, M).
  if (out[0].known() && out[1].known() && out[0].ndim() >= 1 && out[0].ndim() == out[1].ndim()) {
    std::vector<int64_t> dims = out[0].dims();
    dims.push_back(out[1].back());
    merge_shape(in[0], Shape(dims), "bipartite_matching", "data");
  }
  const Shape& s = in[0];
  if (!s.known()) return false;
  BRAID_CHECK(s.ndim() >= 2,
              "operator bipartite_matching: data must be a score matrix (..., rows, columns) "
              "with at least 2 axes; got ",
              s);
  const std::vector<int64_t>& dims = s.dims();
  merge_shape(out[0], Shape(dims.begin(), dims.end() - 1), "bipartite_matching", "output 0 (column of each row)");
  std::vector<int64_t> cols(dims.begin(), dims.end() - 2);
  cols.push_back(s.back());
  merge_shape(out[1], Shape(cols), "bipartite_matching", "output 1 (row of each column)");
  return s.fully_known();
}

/// Per batch: all (row, column) pairs by score, best first (ties in row-major order); each pair
/// whose row and column are both free is matched while its score passes the threshold, and the
/// first such pair that does not pass ends the matching. As MXNet's, topk > 0 stops after the
/// match that makes the count exceed topk, i.e. topk + 1 matches.
template <class T>
void box_match_compute(const BoxMatchParam& p, const Shape& s, const T* x, std::vector<T>& col_of_row,
                       std::vector<T>& row_of_col) {
  const int64_t rows = s[s.ndim() - 2], cols = s.back(), per = rows * cols, batches = s.prod(0, s.ndim() - 2);
  col_of_row.assign(static_cast<size_t>(batches * rows), T(-1));
  row_of_col.assign(static_cast<size_t>(batches * cols), T(-1));
  const T threshold = static_cast<T>(p.threshold);
  std::vector<int64_t> order(static_cast<size_t>(per));
  for (int64_t b = 0; b < batches; ++b) {
    const T* sc = x + b * per;
    std::iota(order.begin(), order.end(), int64_t(0));
    if (p.is_ascend)
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return sc[i] < sc[j]; });
    else
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return sc[i] > sc[j]; });
    T* rm = col_of_row.data() + b * rows;
    T* cm = row_of_col.data() + b * cols;
    int64_t count = 0;
    for (int64_t k : order) {
      const int64_t r = k / cols, c = k % cols;
      if (rm[r] != T(-1) || cm[c] != T(-1)) continue;
      if (!(p.is_ascend ? sc[k] < threshold : sc[k] > threshold)) break;
      rm[r] = static_cast<T>(c);
      cm[c] = static_cast<T>(r);
      if (p.topk > 0 && ++count > p.topk) break;
    }
  }
}

void add_bipartite_matching(Registry& r) {
  OpDef d;
  d.name = "_contrib_bipartite_matching";
  d.doc =
      "Greedy bipartite matching of a score matrix (..., N, M), best scores first (is_ascend: lowest first) while "
      "they pass threshold: output 0 (..., N) the column matched to each row, output 1 (..., M) the row matched to "
      "each column, -1 where none. Zero gradient, as MXNet's.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "bipartite_matching");
    BoxMatchParam p;
    p.is_ascend = rd.get<bool>("is_ascend", p.is_ascend);
    p.threshold = rd.get<float>("threshold");
    p.topk = rd.get<int64_t>("topk", p.topk);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return box_match_infer_shape(in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "bipartite_matching", {
      std::vector<T> col_of_row, row_of_col;
      box_match_compute(param<BoxMatchParam>(pa), a.inputs[0].shape, a.inputs[0].ptr<T>(), col_of_row, row_of_col);
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return col_of_row[static_cast<size_t>(i)]; });
      write_each(a.outputs[1].ptr<T>(), a.req[1], a.outputs[1].size(),
                 [&](int64_t i) { return row_of_col[static_cast<size_t>(i)]; });
    });
  };
  box_codec_zero_gradient(d);
  r.add(std::move(d));
}

// ---- box_encode -------------------------------------------------------------------------------

/// A box's center and size from its corners.
template <class T>
void box_corner_center(const T* b, T& x, T& y, T& w, T& h) {
  w = b[2] - b[0];
  h = b[3] - b[1];
  x = b[0] + w * T(0.5);
  y = b[1] + h * T(0.5);
}

bool box_encode_infer_shape(std::vector<Shape>& in, std::vector<Shape>& out) {
  const char* op = "box_encode";
  Shape &samples = in[0], &matches = in[1], &anchors = in[2], &refs = in[3];
  merge_shape(in[4], Shape({4}), op, "means");
  merge_shape(in[5], Shape({4}), op, "stds");
  for (const Shape& o : out) merge_shape(anchors, o, op, "anchors");
  const auto check = [&](const Shape& s, const char* what, int ndim, const char* form) {
    BRAID_CHECK(!s.known() || (s.ndim() == ndim && (ndim == 2 || s.back() == 4 || s.back() == 0)), "operator ", op,
                ": ", what, " must be ", form, "; got ", s);
  };
  check(samples, "samples", 2, "(batch, N): +1 positive, -1 negative, 0 ignored");
  check(matches, "matches", 2, "(batch, N): the index of each anchor's ref, in [0, M)");
  check(anchors, "anchors", 3, "(batch, N, 4) corners");
  check(refs, "refs", 3, "(batch, M, 4) corners");
  merge_shape(matches, samples, op, "matches (shaped as samples)");
  merge_shape(samples, matches, op, "samples");
  if (samples.known()) merge_shape(anchors, Shape({samples[0], samples[1], 4}), op, "anchors (samples' batch, N, 4)");
  if (anchors.known()) {
    merge_shape(samples, Shape({anchors[0], anchors[1]}), op, "samples");
    merge_shape(matches, Shape({anchors[0], anchors[1]}), op, "matches");
    merge_shape(refs, Shape({anchors[0], unknown_dim(), 4}), op, "refs (batch, M, 4)");
    for (Shape& o : out) merge_shape(o, anchors, op, "output");
  }
  return all_known(in) && all_known(out);
}

template <class T>
void box_encode_compute(const ForwardArgs& a, std::vector<T>& targets, std::vector<T>& masks) {
  const T *samples = a.inputs[0].ptr<T>(), *matches = a.inputs[1].ptr<T>(), *anchors = a.inputs[2].ptr<T>();
  const T *refs = a.inputs[3].ptr<T>(), *means = a.inputs[4].ptr<T>(), *stds = a.inputs[5].ptr<T>();
  const int64_t n = a.inputs[2].shape[1], m = a.inputs[3].shape[1], count = a.inputs[0].size();
  targets.assign(static_cast<size_t>(count * 4), T(0));
  masks.assign(static_cast<size_t>(count * 4), T(0));
  for (int64_t i = 0; i < count; ++i) {
    if (!(samples[i] > T(0.5))) continue;  // not a positive sample: zero target, zero mask
    const T match = matches[i];
    BRAID_CHECK(match > T(-1) && match < static_cast<T>(m), "operator box_encode: the positive sample ", i % n,
                " of batch ", i / n, " is matched to ref ", match, ", outside the ", m, " refs [0, ", m,
                ") of its batch");
    const T* ref = refs + (i / n * m + static_cast<int64_t>(match)) * 4;
    T rx, ry, rw, rh, ax, ay, aw, ah;
    box_corner_center(ref, rx, ry, rw, rh);
    box_corner_center(anchors + i * 4, ax, ay, aw, ah);
    T* t = targets.data() + i * 4;
    t[0] = ((rx - ax) / aw - means[0]) / stds[0];
    t[1] = ((ry - ay) / ah - means[1]) / stds[1];
    t[2] = (std::log(rw / aw) - means[2]) / stds[2];
    t[3] = (std::log(rh / ah) - means[3]) / stds[3];
    std::fill(masks.begin() + i * 4, masks.begin() + i * 4 + 4, T(1));
  }
}

void add_box_encode(Registry& r) {
  OpDef d;
  d.name = "_contrib_box_encode";
  d.doc =
      "Regression targets of anchors (B, N, 4) for their matched refs (B, M, 4), all corners: per positive sample "
      "((ref center - anchor center) / anchor size - means) / stds and (log(ref size / anchor size) - means) / stds; "
      "outputs the targets and their masks (B, N, 4), 0 for samples that are not positive. Zero gradient.";
  d.parse = no_params("_contrib_box_encode");
  d.list_arguments = args({"samples", "matches", "anchors", "refs", "means", "stds"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return box_encode_infer_shape(in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[2].dtype, T, "box_encode", {
      std::vector<T> targets, masks;
      box_encode_compute(a, targets, masks);
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return targets[static_cast<size_t>(i)]; });
      write_each(a.outputs[1].ptr<T>(), a.req[1], a.outputs[1].size(),
                 [&](int64_t i) { return masks[static_cast<size_t>(i)]; });
    });
  };
  box_codec_zero_gradient(d);
  r.add(std::move(d));
}

// ---- box_decode -------------------------------------------------------------------------------

struct BoxDecodeParam {
  float std[4] = {1, 1, 1, 1};
  float clip = -1;
  BoxFormat format = BoxFormat::Center;
};

bool box_decode_infer_shape(std::vector<Shape>& in, std::vector<Shape>& out) {
  const char* op = "box_decode";
  Shape &data = in[0], &anchors = in[1];
  merge_shape(data, out[0], op, "data");
  if (data.known()) {
    BRAID_CHECK(data.ndim() == 3 && (data[2] == 4 || data[2] == 0), "operator box_decode: data must be the ",
                "encoded boxes (batch, N, 4); got ", data);
    if (!anchors.known()) anchors = Shape({1, data[1], 4});
    merge_shape(out[0], data, op, "output");
  }
  if (!anchors.known()) return false;
  BRAID_CHECK(anchors.ndim() >= 3 && anchors.back() == 4, "operator box_decode: anchors must be (1, N, 4) boxes ",
              "in the attribute format; got ", anchors);
  if (!data.fully_known() || !anchors.fully_known()) return false;
  BRAID_CHECK(anchors.size() == data[1] * 4, "operator box_decode: anchors ", anchors, " must hold one box per box of ",
              "data ", data, ", shared by the batch: (1, ", data[1], ", 4)");
  return true;
}

void add_box_decode(Registry& r) {
  OpDef d;
  d.name = "_contrib_box_decode";
  d.doc =
      "Boxes (B, N, 4) in corners from regression outputs data (B, N, 4) and anchors (1, N, 4) in `format` "
      "('center' by default, or 'corner'): center = data[:2] · std0/std1 · anchor size + anchor center, size = "
      "exp(data[2:] · std2/std3, capped at clip when clip > 0) · anchor size. Zero gradient, as MXNet's.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "box_decode");
    BoxDecodeParam p;
    for (int k = 0; k < 4; ++k) p.std[k] = rd.get<float>("std" + std::to_string(k), p.std[k]);
    p.clip = rd.get<float>("clip", p.clip);
    p.format = read_box_format(rd, "format", BoxFormat::Center);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data", "anchors"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return box_decode_infer_shape(in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<BoxDecodeParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "box_decode", {
      const T *x = a.inputs[0].ptr<T>(), *anchors = a.inputs[1].ptr<T>();
      const int64_t n = a.inputs[0].shape[1], count = a.inputs[0].size() / 4;
      const T s0 = static_cast<T>(p.std[0]), s1 = static_cast<T>(p.std[1]);
      const T s2 = static_cast<T>(p.std[2]), s3 = static_cast<T>(p.std[3]), clip = static_cast<T>(p.clip);
      std::vector<T> out(static_cast<size_t>(count * 4));
      for (int64_t i = 0; i < count; ++i) {
        const T *d = x + i * 4, *an = anchors + i % n * 4;
        T ax = an[0], ay = an[1], aw = an[2], ah = an[3];
        if (p.format == BoxFormat::Corner) box_corner_center(an, ax, ay, aw, ah);
        const T ox = d[0] * s0 * aw + ax, oy = d[1] * s1 * ah + ay;
        T dw = d[2] * s2, dh = d[3] * s3;
        if (p.clip > 0) dw = dw < clip ? dw : clip, dh = dh < clip ? dh : clip;
        const T hw = std::exp(dw) * aw * T(0.5), hh = std::exp(dh) * ah * T(0.5);
        T* o = out.data() + i * 4;
        o[0] = ox - hw, o[1] = oy - hh, o[2] = ox + hw, o[3] = oy + hh;
      }
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return out[static_cast<size_t>(i)]; });
    });
  };
  box_codec_zero_gradient(d);
  r.add(std::move(d));
}

}  // namespace

void register_box_codec_ops(Registry& r) {
  add_bipartite_matching(r);
  add_box_encode(r);
  add_box_decode(r);
}

}  // namespace braid::op::detail
