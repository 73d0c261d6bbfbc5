#include "matrix_util.h"

#include <set>

namespace braid::op::detail {
namespace {

void set_view_kernels(OpDef& d, const ViewFn& view) {
  d.cpu.forward = [view, name = d.name](const OpContext& oc, const std::any& p, const ForwardArgs& a) {
    const TBlob& in = a.inputs[0];
    const TBlob& out = a.outputs[0];
    InputView v = view(p, in.shape);
    data_mover(oc.ctx).copy(in.dtype, in.dptr, v.offset, v.strides, out.dptr, 0, contiguous_strides(v.shape), v.shape,
                            a.req[0], name.c_str());
  };
  d.cpu.backward = [view, name = d.name](const OpContext& oc, const std::any& p, const BackwardArgs& a) {
    OpReq req = a.req[0];
    if (req == OpReq::Null) return;
    const TBlob& g = a.out_grads[0];
    const TBlob& dx = a.in_grads[0];
    InputView v = view(p, dx.shape);
    const DataMover& move = data_mover(oc.ctx);
    if (req == OpReq::Write && !v.bijective) {
      move.zero(dx);
      req = OpReq::Add;
    }
    move.copy(g.dtype, g.dptr, 0, contiguous_strides(v.shape), dx.dptr, v.offset, v.strides, v.shape, req,
              name.c_str());
  };
}

}  // namespace

namespace {

// For a view that keeps the element count: an input with one unknown dimension and a known
// output shape has that dimension (MXNet infers it backwards so).
void complete_view_input(Shape& in, const Shape& out) {
  if (!out.fully_known() || in.fully_known()) return;
  int unknown = -1;
  int64_t known = 1;
  for (int i = 0; i < in.ndim(); ++i) {
    if (dim_known(in[i])) {
      known *= in[i];
    } else if (unknown >= 0) {
      return;  // two unknowns: not determined
    } else {
      unknown = i;
    }
  }
  if (unknown >= 0 && known > 0 && out.size() % known == 0) in[unknown] = out.size() / known;
}

}  // namespace

void add_view_op(Registry& r, OpDef d, ShapeFn shape, ViewFn view, bool keeps_size, ShapeFn input_of) {
  d.list_arguments = args({"data"});
  d.infer_shape = [op = d.name, shape, keeps_size, input_of](const std::any& p, std::vector<Shape>& in,
                                                             std::vector<Shape>& out, std::vector<Shape>&) {
    if (input_of && out[0].fully_known()) merge_shape(in[0], input_of(p, out[0]), op, "data");
    if (!in[0].known()) return false;
    if (keeps_size) complete_view_input(in[0], out[0]);
    if (!in[0].fully_known()) {
      // Partial input (0: unknown): the output where the known dimensions decide it, as MXNet.
      try {
        merge_shape(out[0], shape(p, in[0]), op, "output");
      } catch (const Error&) {
      }
      return false;
    }
    merge_shape(out[0], shape(p, in[0]), op, "output");
    return out[0].fully_known();
  };
  set_view_kernels(d, view);
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };  // shapes only
  r.add(std::move(d));
}

int normalize_axis(const std::string& op, const char* attr, int64_t axis, int ndim, const Shape& shape) {
  BRAID_CHECK(axis >= -ndim && axis < ndim, "operator ", op, ": ", attr, "=", axis, " is out of range for input shape ",
              shape, " (valid: ", -ndim, " to ", ndim - 1, ")");
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> normalize_axes(const std::string& op, const std::vector<int64_t>& axes, int ndim, const Shape& shape) {
  std::vector<int> out;
  std::set<int> seen;
  for (int64_t a : axes) {
    int n = normalize_axis(op, "axis", a, ndim, shape);
    BRAID_CHECK(seen.insert(n).second, "operator ", op, ": axis ", a, " is repeated in ", Shape(axes),
                "; give each axis once");
    out.push_back(n);
  }
  return out;
}

InputView elements_in_order(const std::any&, const Shape& in) {
  InputView v;
  v.shape = {in.size()};
  v.strides = {1};
  v.bijective = true;
  return v;
}

}  // namespace braid::op::detail
