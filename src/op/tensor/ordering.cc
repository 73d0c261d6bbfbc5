// Ordering operators: topk, sort, argsort (one kernel; sort is topk of every element returning
// values, argsort the same returning indices). Ordering is stable: equal values keep their
// original order in both directions (MXNet's CPU std::sort leaves ties unspecified). NaN ranks
// above every number, so it comes last ascending and first descending.
// Values carry a gradient (scattered back to the selected positions); indices and masks do not.
#include <algorithm>
#include <numeric>

#include "axis_util.h"
#include "index_util.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "ordering.h"

namespace braid::op::detail {

TopKLayout topk_layout(const std::string& op, const TopKParam& p, const Shape& in) {
  TopKLayout l;
  l.s = p.axis ? split_at_axis(in, checked_axis(op, in, *p.axis)) : AxisSplit{1, in.size(), 1};
  l.k = p.k < 1 ? l.s.n : p.k;
  BRAID_CHECK(l.k >= 1 && l.k <= l.s.n, "operator ", op, ": k=", p.k, " exceeds the ", l.s.n,
              " elements along the axis of shape ", in, "; use k <= ", l.s.n, " (or k < 1 for all)");
  return l;
}

namespace {

Shape topk_out_shape(const std::string& op, const TopKParam& p, const Shape& in) {
  const int64_t k = topk_layout(op, p, in).k;
  if (p.ret == RetTyp::Mask) return in;
  if (!p.axis) return Shape({k});
  Shape s = in;
  s[checked_axis(op, in, *p.axis)] = k;
  return s;
}

// Positions (along the axis) of the k selected elements of every line, laid out like the
// value output: [outer, k, inner].
template <class T>
std::vector<int64_t> select_topk(const T* x, const TopKLayout& l, bool ascend) {
  const AxisSplit& s = l.s;
  std::vector<int64_t> pos(static_cast<size_t>(s.outer * l.k * s.inner));
  std::vector<T> line(static_cast<size_t>(s.n));
  std::vector<int64_t> order(static_cast<size_t>(s.n));
  const auto before = [&](int64_t p, int64_t q) {
    return comes_before(line[static_cast<size_t>(p)], p, line[static_cast<size_t>(q)], q, ascend);
  };
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      const T* xl = x + o * s.n * s.inner + i;
      for (int64_t j = 0; j < s.n; ++j) line[static_cast<size_t>(j)] = xl[j * s.inner];
      std::iota(order.begin(), order.end(), int64_t{0});
      if (l.k == s.n)
        std::sort(order.begin(), order.end(), before);
      else
        std::partial_sort(order.begin(), order.begin() + l.k, order.end(), before);
      for (int64_t j = 0; j < l.k; ++j)
        pos[static_cast<size_t>((o * l.k + j) * s.inner + i)] = order[static_cast<size_t>(j)];
    }
  return pos;
}

// Flat input offset of the element at `pos` entry e (layout [outer, k, inner]).
inline int64_t source_of(const TopKLayout& l, int64_t e, int64_t pos) {
  const int64_t i = e % l.s.inner, o = e / (l.k * l.s.inner);
  return (o * l.s.n + pos) * l.s.inner + i;
}

template <class T>
void topk_forward(const std::string& op, const TopKParam& p, const ForwardArgs& a) {
  const TopKLayout l = topk_layout(op, p, a.inputs[0].shape);
  const T* x = a.inputs[0].ptr<T>();
  const auto pos = select_topk(x, l, p.is_ascend);
  const int64_t n = static_cast<int64_t>(pos.size());
  if (p.ret == RetTyp::Mask) {
    T* m = a.outputs[0].ptr<T>();
    std::vector<T> mask(static_cast<size_t>(a.inputs[0].size()), T(0));
    for (int64_t e = 0; e < n; ++e) mask[static_cast<size_t>(source_of(l, e, pos[static_cast<size_t>(e)]))] = T(1);
    for (size_t e = 0; e < mask.size(); ++e) assign(m[e], a.req[0], mask[e]);
    return;
  }
  const size_t idx_out = returns_values(p) ? 1 : 0;
  check_index_dtype(op, a.outputs[idx_out].dtype, l.s.n);
  store_indices(pos, a.outputs[idx_out], a.req[idx_out]);
  if (returns_values(p)) {
    T* y = a.outputs[0].ptr<T>();
    for (int64_t e = 0; e < n; ++e) assign(y[e], a.req[0], x[source_of(l, e, pos[static_cast<size_t>(e)])]);
  }
}

// Gradient of the values output, scattered to the selected positions; zero for indices/mask.
void topk_backward(const std::string& op, const TopKParam& p, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  BRAID_TYPE_SWITCH(a.in_grads[0].dtype, T, op.c_str(), {
    T* dx = a.in_grads[0].ptr<T>();
    if (a.req[0] == OpReq::Write) std::fill(dx, dx + a.in_grads[0].size(), T(0));
    if (!returns_values(p)) return;
    const TopKLayout l = topk_layout(op, p, a.inputs[0].shape);
    const auto pos = read_indices(a.outputs[1], op);
    const T* g = a.out_grads[0].ptr<T>();
    for (size_t e = 0; e < pos.size(); ++e) dx[source_of(l, static_cast<int64_t>(e), pos[e])] += g[e];
  });
}

void add_ordering_op(Registry& r, const std::string& name, const std::string& doc,
                     std::function<TopKParam(ParamReader&)> read, bool zero_gradient) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = [name, read](const AttrMap& a) {
    ParamReader rd(a, name);
    TopKParam p = read(rd);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any& p) { return num_outputs_of(param<TopKParam>(p)); };
  d.num_visible_outputs = [](const std::any& p) { return param<TopKParam>(p).ret == RetTyp::Both ? 2 : 1; };
  d.infer_shape = [name](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    const Shape s = topk_out_shape(name, param<TopKParam>(pa), in[0]);
    for (auto& o : out) merge_shape(o, s, name, "output");
    return in[0].fully_known();
  };
  d.infer_type = [name](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    const auto& p = param<TopKParam>(pa);
    if (returns_values(p)) out[1] = p.ret == RetTyp::Both ? p.dtype : DType::Int64;
    if (p.ret == RetTyp::Indices) {
      out[0] = p.dtype;
      return;
    }
    if (in[0] == kDTypeUnknown) in[0] = out[0];
    if (out[0] == kDTypeUnknown) out[0] = in[0];
    BRAID_CHECK(in[0] == out[0], "operator ", name, ": the output dtype ", dtype_name(out[0]),
                " differs from the data dtype ", dtype_name(in[0]));
  };
  d.cpu.forward = [name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { topk_forward<T>(name, param<TopKParam>(pa), a); });
  };
  d.cpu.backward = [name](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    topk_backward(name, param<TopKParam>(pa), a);
  };
  d.zero_gradient = zero_gradient;  // argsort: positions only, a zero gradient as MXNet's
  r.add(std::move(d));
}

const std::vector<std::string> kIndexDTypes = {"uint8", "int32", "int64", "float16", "float32", "float64"};

DType read_index_dtype(ParamReader& r) { return dtype_from_name(r.get_enum("dtype", kIndexDTypes, "float32")); }

}  // namespace

void register_ordering_ops(Registry& r) {
  add_ordering_op(
      r, "topk",
      "The k largest (is_ascend=False) or smallest elements along `axis` (None: flattened): "
      "ret_typ 'indices' (default), 'value', 'both' (values, indices) or 'mask' (1 at the selected "
      "positions).",
      [](ParamReader& rd) {
        TopKParam p;
        p.axis = read_axis_or_none(rd, -1);
        p.k = rd.get<int64_t>("k", 1);
        const std::string ret = rd.get_enum("ret_typ", {"value", "indices", "mask", "both"}, "indices");
        p.ret = ret == "value"     ? RetTyp::Value
                : ret == "indices" ? RetTyp::Indices
                : ret == "mask"    ? RetTyp::Mask
                                   : RetTyp::Both;
        p.is_ascend = rd.get<bool>("is_ascend", false);
        p.dtype = read_index_dtype(rd);
        return p;
      },
      false);
  add_ordering_op(
      r, "sort", "The elements sorted along `axis` (None: flattened), ascending unless is_ascend=False.",
      [](ParamReader& rd) {
        TopKParam p;
        p.axis = read_axis_or_none(rd, -1);
        p.k = 0;
        p.ret = RetTyp::Value;
        p.is_ascend = rd.get<bool>("is_ascend", true);
        return p;
      },
      false);
  add_ordering_op(
      r, "argsort", "The positions that sort the elements along `axis` (None: flattened), in `dtype`; no gradient.",
      [](ParamReader& rd) {
        TopKParam p;
        p.axis = read_axis_or_none(rd, -1);
        p.k = 0;
        p.ret = RetTyp::Indices;
        p.is_ascend = rd.get<bool>("is_ascend", true);
        p.dtype = read_index_dtype(rd);
        return p;
      },
      true);
}

}  // namespace braid::op::detail
