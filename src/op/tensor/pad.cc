// pad (Pad): pads an array along each axis by pad_width's (before, after) counts, with a constant
// (mode 'constant'), the edge value repeated ('edge') or the values mirrored about the edge
// ('reflect'), as MXNet's. MXNet pads only the spatial axes of 4-D and 5-D arrays; the first two
// pairs of pad_width must be 0. Gradients sum back into the elements each output copied.
#include <algorithm>

#include "op/op_util.h"
#include "pad.h"

namespace braid::op::detail {
namespace {

void check_pad(const PadParam& p, const Shape& in) {
  BRAID_CHECK(in.ndim() == 4 || in.ndim() == 5, "operator pad: data of shape ", in,
              " must be 4-D or 5-D (N, C and 2 or 3 spatial axes)");
  BRAID_CHECK(p.pad_width.size() == 2 * static_cast<size_t>(in.ndim()), "operator pad: pad_width ", Shape(p.pad_width),
              " must have 2 values (before, after) per axis of data ", in);
  BRAID_CHECK(std::all_of(p.pad_width.begin(), p.pad_width.begin() + 4, [](int64_t w) { return w == 0; }),
              "operator pad: pad_width ", Shape(p.pad_width), " pads the N or C axis; only spatial axes are padded");
  for (int k = 0; k < in.ndim(); ++k) {
    const int64_t before = p.pad_width[2 * static_cast<size_t>(k)], after = p.pad_width[2 * static_cast<size_t>(k) + 1];
    BRAID_CHECK(before >= 0 && after >= 0, "operator pad: pad_width ", Shape(p.pad_width), " must not be negative");
    BRAID_CHECK(p.mode != PadMode::Reflect || (before < in[k] && after < in[k]),
                "operator pad: mode 'reflect' pads axis ", k, " of data ", in, " by ", before, " and ", after,
                "; each must be smaller than the axis");
  }
}

Shape padded_shape(const PadParam& p, const Shape& in) {
  check_pad(p, in);
  Shape out = in;
  for (int k = 0; k < in.ndim(); ++k)
    out[k] = in[k] + p.pad_width[2 * static_cast<size_t>(k)] + p.pad_width[2 * static_cast<size_t>(k) + 1];
  return out;
}

// For each axis, the input index that output index o copies (-1: the constant).
std::vector<std::vector<int64_t>> source_indices(const PadParam& p, const Shape& in) {
  std::vector<std::vector<int64_t>> src(static_cast<size_t>(in.ndim()));
  for (int k = 0; k < in.ndim(); ++k) {
    const int64_t n = in[k], before = p.pad_width[2 * static_cast<size_t>(k)];
    const int64_t size = n + before + p.pad_width[2 * static_cast<size_t>(k) + 1];
    for (int64_t o = 0; o < size; ++o) src[static_cast<size_t>(k)].push_back(pad_source(o, n, before, p.mode));
  }
  return src;
}

// Calls visit(output offset, input offset or -1) for every output element, in order.
template <class Visit>
void for_each_element(const PadParam& p, const Shape& in, Visit&& visit) {
  const auto src = source_indices(p, in);
  const int nd = in.ndim();
  const std::vector<int64_t> in_strides = [&] {
    std::vector<int64_t> s(static_cast<size_t>(nd), 1);
    for (int k = nd - 2; k >= 0; --k) s[static_cast<size_t>(k)] = s[static_cast<size_t>(k) + 1] * in[k + 1];
    return s;
  }();
  std::vector<int64_t> index(static_cast<size_t>(nd), 0);
  const int64_t total = padded_shape(p, in).size();
  for (int64_t o = 0; o < total; ++o) {
    int64_t from = 0;
    for (int k = 0; k < nd && from >= 0; ++k) {
      const int64_t i = src[static_cast<size_t>(k)][static_cast<size_t>(index[static_cast<size_t>(k)])];
      from = i < 0 ? -1 : from + i * in_strides[static_cast<size_t>(k)];
    }
    visit(o, from);
    for (int k = nd - 1; k >= 0; --k) {
      auto& ik = index[static_cast<size_t>(k)];
      if (++ik < static_cast<int64_t>(src[static_cast<size_t>(k)].size())) break;
      ik = 0;
    }
  }
}

}  // namespace

void register_pad_ops(Registry& r) {
  OpDef d;
  d.name = "Pad";  // MXNet's name, written in symbol files; pad is its alias
  d.doc = "Pads the spatial axes by pad_width with a constant, the edge values or their reflection.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "pad");
    PadParam p;
    const std::string mode = rd.get_enum("mode", {"constant", "edge", "reflect"}, "constant");
    p.mode = mode == "edge" ? PadMode::Edge : mode == "reflect" ? PadMode::Reflect : PadMode::Constant;
    p.pad_width = rd.get<std::vector<int64_t>>("pad_width");
    p.constant_value = rd.get<double>("constant_value", 0.0);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    merge_shape(out[0], padded_shape(param<PadParam>(p), in[0]), "pad", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<PadParam>(pa);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "pad", {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      const T fill = static_cast<T>(p.constant_value);
      for_each_element(p, a.inputs[0].shape,
                       [&](int64_t o, int64_t from) { assign(y[o], a.req[0], from < 0 ? fill : x[from]); });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    BRAID_TYPE_SWITCH(a.in_grads[0].dtype, T, "pad", {
      const T* g = a.out_grads[0].ptr<T>();
      T* dx = a.in_grads[0].ptr<T>();
      if (a.req[0] == OpReq::Write) std::fill(dx, dx + a.in_grads[0].size(), T(0));
      for_each_element(param<PadParam>(pa), a.in_grads[0].shape, [&](int64_t o, int64_t from) {
        if (from >= 0) dx[from] += g[o];
      });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
  r.add_alias("pad", "Pad");
}

}  // namespace braid::op::detail
