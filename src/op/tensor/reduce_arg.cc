// argmax / argmin along one axis (or over the flattened array when axis is None). As in MXNet the
// positions come back in the input's dtype, and the ops have no gradient. Ties go to the first
// position; NaN counts as the extreme (the first NaN wins), as in NumPy.
#include <vector>

#include "op/common/zero_backward.h"
#include "reduce_op.h"

namespace braid::op::detail {
namespace {

Shape arg_reduce_shape(const std::string& op, const ArgReduceParam& p, const Shape& in) {
  std::vector<bool> reduced(static_cast<size_t>(in.ndim()), true);
  if (p.axis) {
    reduced.assign(reduced.size(), false);
    reduced[static_cast<size_t>(checked_axis(op, in, *p.axis))] = true;
  }
  return reduced_shape(in, reduced, p.keepdims);
}

// Position of the best element of each (outer, inner) line, written as T.
template <class T, class Better>
void arg_reduce(const T* x, T* y, OpReq req, const AxisSplit& s, Better better) {
  std::vector<T> best(static_cast<size_t>(s.inner));
  std::vector<int64_t> pos(static_cast<size_t>(s.inner));
  for (int64_t o = 0; o < s.outer; ++o) {
    const T* xo = x + o * s.n * s.inner;
    if (s.inner == 1) {  // a contiguous line: keep the best in registers
      T b = xo[0];
      int64_t p = 0;
      for (int64_t j = 1; j < s.n; ++j)
        if (better(xo[j], b)) {
          b = xo[j];
          p = j;
        }
      assign(y[o], req, static_cast<T>(p));
      continue;
    }
    for (int64_t i = 0; i < s.inner; ++i) {
      best[static_cast<size_t>(i)] = xo[i];
      pos[static_cast<size_t>(i)] = 0;
    }
    for (int64_t j = 1; j < s.n; ++j) {  // rows of `inner` contiguous elements
      const T* row = xo + j * s.inner;
      for (int64_t i = 0; i < s.inner; ++i) {
        if (better(row[i], best[static_cast<size_t>(i)])) {
          best[static_cast<size_t>(i)] = row[i];
          pos[static_cast<size_t>(i)] = j;
        }
      }
    }
    for (int64_t i = 0; i < s.inner; ++i) assign(y[o * s.inner + i], req, static_cast<T>(pos[static_cast<size_t>(i)]));
  }
}

// `channel_only`: MXNet's legacy argmax_channel, argmax along axis 1 without attributes.
template <class Better>
void add_arg_reduce(Registry& r, const std::string& name, const std::string& what, Better better,
                    bool channel_only = false) {
  OpDef d;
  d.name = name;
  d.doc = "Position of the " + what + " along `axis` (None: of the flattened array), in the input dtype.";
  d.parse = [name, channel_only](const AttrMap& a) {
    ParamReader rd(a, name);
    ArgReduceParam p;
    if (channel_only) {
      p.axis = 1;
    } else {
      p.axis = rd.get_optional<int64_t>("axis");
      p.keepdims = rd.get<bool>("keepdims", false);
    }
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [name](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    merge_shape(out[0], arg_reduce_shape(name, param<ArgReduceParam>(p), in[0]), name, "output");
    return in[0].fully_known();
  };
  d.cpu.forward = [name, better](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<ArgReduceParam>(pa);
    const Shape& in = a.inputs[0].shape;
    const AxisSplit s = p.axis ? split_at_axis(in, checked_axis(name, in, *p.axis)) : AxisSplit{1, in.size(), 1};
    BRAID_CHECK(s.n > 0, "operator ", name, ": the reduced axis of shape ", in, " is empty");
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(),
                      { arg_reduce(a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), a.req[0], s, better); });
  };
  d.cpu.backward = zero_backward;  // positions: a zero gradient, as MXNet's
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

}  // namespace

void add_arg_reduce_ops(Registry& r) {
  add_arg_reduce(r, "argmax", "maximum", math::ArgMaxBetter{});
  add_arg_reduce(r, "argmin", "minimum", math::ArgMinBetter{});
  add_arg_reduce(r, "argmax_channel", "maximum along axis 1", math::ArgMaxBetter{}, true);
}

}  // namespace braid::op::detail
