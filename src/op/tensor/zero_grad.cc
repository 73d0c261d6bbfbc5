// Operators whose gradient is zero by definition: BlockGrad (stop_gradient: the input unchanged,
// no gradient flows back through it), zeros_like and ones_like (an array of the input's shape
// and dtype filled with 0 or 1); and _identity_with_attr_like_rhs, lhs unchanged with rhs's shape,
// whose gradient is zero for rhs.
#include <algorithm>

#include "braid/base/convert.h"
#include "op/common/zero_backward.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

OpDef same_shape_op(const std::string& name, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = no_params(name);
  d.list_arguments = args({"data"});
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape(name, in, out);
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (out[0] == kDTypeUnknown) out[0] = in[0];
    if (in[0] == kDTypeUnknown) in[0] = out[0];
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.elementwise = true;  // may run in place (and in fused chains): each output element from its input's
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  return d;
}

void add_fill_like(Registry& r, const std::string& name, double value) {
  OpDef d = same_shape_op(name, "An array of the input's shape and dtype filled with one value.");
  d.cpu.forward = [value](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_VALUE_TYPE_SWITCH(a.outputs[0].dtype, T, "fill", {
      const T x = static_cast<T>(value);
      std::fill(a.outputs[0].ptr<T>(), a.outputs[0].ptr<T>() + a.outputs[0].size(), x);
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_zero_grad_ops(Registry& r) {
  OpDef block = same_shape_op("BlockGrad", "The input unchanged; no gradient flows back through it.");
  block.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    if (a.inputs[0].dptr != a.outputs[0].dptr)
      convert_elements(a.inputs[0].dptr, a.inputs[0].dtype, a.outputs[0].dptr, a.outputs[0].dtype, a.inputs[0].size());
  };
  r.add(std::move(block));
  r.add_alias("stop_gradient", "BlockGrad");
  add_fill_like(r, "zeros_like", 0.0);
  add_fill_like(r, "ones_like", 1.0);

  // MXNet uses it to pass a shape backward through a graph (lhs takes rhs's shape).
  OpDef like;
  like.name = "_identity_with_attr_like_rhs";
  like.doc = "lhs unchanged; lhs, rhs and the output share one shape.";
  like.parse = no_params(like.name);
  like.list_arguments = args({"lhs", "rhs"});
  like.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("_identity_with_attr_like_rhs", in, out);
  };
  like.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (out[0] == kDTypeUnknown) out[0] = in[0];
  };
  like.cpu.forward = r.find("BlockGrad").cpu.forward;
  like.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    const TBlob &g = a.out_grads[0], &d = a.in_grads[0];
    if (a.req[0] == OpReq::Write && g.dptr != d.dptr) convert_elements(g.dptr, g.dtype, d.dptr, d.dtype, g.size());
    if (a.req[0] == OpReq::Add)
      BRAID_TYPE_SWITCH(d.dtype, T, "_identity_with_attr_like_rhs", {
        for (int64_t i = 0, end = d.size(); i < end; ++i) d.ptr<T>()[i] += g.ptr<T>()[i];
      });
    if (a.req[1] == OpReq::Write)
      BRAID_TYPE_SWITCH(a.in_grads[1].dtype, T, "_identity_with_attr_like_rhs",
                        { std::fill(a.in_grads[1].ptr<T>(), a.in_grads[1].ptr<T>() + a.in_grads[1].size(), T(0)); });
  };
  like.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(like));
}

}  // namespace braid::op::detail
