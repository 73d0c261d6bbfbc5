// Indexing operators: take (gather slices along an axis), pick (one element per line along an
// axis) and one_hot. Index inputs have no gradient (zeros, as in MXNet).
#include <algorithm>

#include "axis_util.h"
#include "index_util.h"
#include "indexing_param.h"
#include "op/common/zero_backward.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "reduce_plan.h"

namespace braid::op::detail {
namespace {

// ---- take(a, indices, axis=0, mode='clip') -> a.shape[:axis] + indices.shape + a.shape[axis+1:]

// Positions along the taken axis, resolved into [0, len).
std::vector<int64_t> take_positions(const TBlob& indices, int64_t len, IndexMode mode) {
  BRAID_CHECK(len > 0, "operator take: cannot take from an axis of size 0");
  auto pos = read_indices(indices, "take");
  for (auto& j : pos) j = resolve_index(j, len, mode, "take");
  return pos;
}

void add_take(Registry& r) {
  OpDef d;
  d.name = "take";
  d.doc =
      "Slices of `a` at `indices` along `axis`; out-of-range indices are clipped, wrapped or "
      "an error by `mode`. The gradient of `a` adds up the output gradients of each slice.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "take");
    TakeParam p;
    p.axis = rd.get<int64_t>("axis", 0);
    p.mode = read_index_mode(rd, {"clip", "wrap", "raise"});
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"a", "indices"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known() || !in[1].known()) return false;
    const int axis = checked_axis("take", in[0], param<TakeParam>(pa).axis);
    std::vector<int64_t> dims(in[0].dims().begin(), in[0].dims().begin() + axis);
    dims.insert(dims.end(), in[1].dims().begin(), in[1].dims().end());
    dims.insert(dims.end(), in[0].dims().begin() + axis + 1, in[0].dims().end());
    merge_shape(out[0], Shape(std::move(dims)), "take", "output");
    return in[0].fully_known() && in[1].fully_known();
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    infer_data_index_type("take", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<TakeParam>(pa);
    const AxisSplit s = split_at_axis(a.inputs[0].shape, checked_axis("take", a.inputs[0].shape, p.axis));
    const auto pos = take_positions(a.inputs[1], s.n, p.mode);
    const int64_t n = static_cast<int64_t>(pos.size());
    BRAID_VALUE_TYPE_SWITCH(a.inputs[0].dtype, T, "take", {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t j = 0; j < n; ++j)
          copy_block(y + (o * n + j) * s.inner, x + (o * s.n + pos[static_cast<size_t>(j)]) * s.inner, s.inner,
                     a.req[0]);
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    zero_index_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<TakeParam>(pa);
    const AxisSplit s = split_at_axis(a.inputs[0].shape, checked_axis("take", a.inputs[0].shape, p.axis));
    const auto pos = take_positions(a.inputs[1], s.n, p.mode);
    const int64_t n = static_cast<int64_t>(pos.size());
    BRAID_TYPE_SWITCH(a.in_grads[0].dtype, T, "take", {
      T* dx = a.in_grads[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      if (a.req[0] == OpReq::Write) std::fill(dx, dx + a.in_grads[0].size(), T(0));
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t j = 0; j < n; ++j)
          add_block(dx + (o * s.n + pos[static_cast<size_t>(j)]) * s.inner, g + (o * n + j) * s.inner, s.inner);
    });
  };
  r.add(std::move(d));
}

// ---- pick(data, index, axis=-1, keepdims=False, mode='clip'): data[..., index[...], ...]

// For each (outer, inner) line, the flat position in `data` of the picked element.
std::vector<int64_t> pick_positions(const PickParam& p, const TBlob& data, const TBlob& index) {
  const AxisSplit s = split_at_axis(data.shape, checked_axis("pick", data.shape, p.axis));
  BRAID_CHECK(s.n > 0, "operator pick: cannot pick from an axis of size 0");
  auto pos = read_indices(index, "pick");
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      auto& k = pos[static_cast<size_t>(o * s.inner + i)];
      k = (o * s.n + resolve_index(k, s.n, p.mode, "pick")) * s.inner + i;
    }
  return pos;
}

void add_pick(Registry& r) {
  OpDef d;
  d.name = "pick";
  d.doc =
      "One element of each line of `data` along `axis`, chosen by `index` (shaped like the "
      "output); out-of-range indices are clipped or wrapped by `mode`.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "pick");
    PickParam p;
    auto axis = read_axis_or_none(rd, -1);
    p.keepdims = rd.get<bool>("keepdims", false);
    p.mode = read_index_mode(rd, {"clip", "wrap"});
    rd.finish();
    BRAID_CHECK(axis, "operator pick: axis=None is not supported; give the axis to pick along");
    p.axis = *axis;
    return std::any(p);
  };
  d.list_arguments = args({"data", "index"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    const auto& p = param<PickParam>(pa);
    std::vector<bool> reduced(static_cast<size_t>(in[0].ndim()), false);
    reduced[static_cast<size_t>(checked_axis("pick", in[0], p.axis))] = true;
    const Shape s = reduced_shape(in[0], reduced, p.keepdims);
    merge_shape(out[0], s, "pick", "output");
    merge_shape(in[1], s, "pick", "index");
    return in[0].fully_known();
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    infer_data_index_type("pick", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto pos = pick_positions(param<PickParam>(pa), a.inputs[0], a.inputs[1]);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "pick", {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      for (size_t i = 0; i < pos.size(); ++i) assign(y[i], a.req[0], x[pos[i]]);
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    zero_index_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    const auto pos = pick_positions(param<PickParam>(pa), a.inputs[0], a.inputs[1]);
    BRAID_TYPE_SWITCH(a.in_grads[0].dtype, T, "pick", {
      T* dx = a.in_grads[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      if (a.req[0] == OpReq::Write) std::fill(dx, dx + a.in_grads[0].size(), T(0));
      for (size_t i = 0; i < pos.size(); ++i) dx[pos[i]] += g[i];
    });
  };
  r.add(std::move(d));
  r.add_alias("choose_element_0index", "pick");  // MXNet's first name of pick
}

// ---- one_hot(indices, depth, on_value=1, off_value=0, dtype='float32') -> indices.shape + (depth,)

void add_one_hot(Registry& r) {
  OpDef d;
  d.name = "one_hot";
  d.doc =
      "Rows of length `depth` holding `on_value` at each index and `off_value` elsewhere; an "
      "index outside [0, depth) gives a row of `off_value`.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "one_hot");
    OneHotParam p;
    p.depth = rd.get<int64_t>("depth");
    p.on_value = rd.get<double>("on_value", 1.0);
    p.off_value = rd.get<double>("off_value", 0.0);
    p.dtype = dtype_from_name(rd.get<std::string>("dtype", "float32"));
    rd.finish();
    BRAID_CHECK(p.depth >= 0, "operator one_hot: depth must not be negative, got ", p.depth);
    return std::any(p);
  };
  d.list_arguments = args({"indices"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    std::vector<int64_t> dims = in[0].dims();
    dims.push_back(param<OneHotParam>(pa).depth);
    merge_shape(out[0], Shape(std::move(dims)), "one_hot", "output");
    return in[0].fully_known();
  };
  d.infer_type = [](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (in[0] == kDTypeUnknown) in[0] = DType::Float32;
    out[0] = param<OneHotParam>(pa).dtype;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<OneHotParam>(pa);
    const auto idx = read_indices(a.inputs[0], "one_hot");
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "one_hot", {
      T* y = a.outputs[0].ptr<T>();
      const T on = static_cast<T>(p.on_value), off = static_cast<T>(p.off_value);
      for (size_t i = 0; i < idx.size(); ++i) {
        T* row = y + static_cast<int64_t>(i) * p.depth;
        for (int64_t k = 0; k < p.depth; ++k) assign(row[k], a.req[0], k == idx[i] ? on : off);
      }
    });
  };
  d.cpu.backward = zero_backward;  // indices: a zero gradient, as MXNet's
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_indexing_ops(Registry& r) {
  add_take(r);
  add_pick(r);
  add_one_hot(r);
}

}  // namespace braid::op::detail
