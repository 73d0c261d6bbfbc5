// Losses made from any expression: make_loss(data) passes data through and sends a gradient of
// ones back, whatever comes from above (MXNet's make_loss); the older MakeLoss scales that
// gradient by grad_scale and divides it by the batch size (normalization='batch') or by the
// number of elements above valid_thresh ('valid').
#include "make_loss.h"

#include "braid/op/param_reader.h"
#include "op/op_util.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

struct MakeLossParam {
  double grad_scale = 1.0, valid_thresh = 0.0;
  std::string normalization = "null";
};

void pass_through(const OpContext& oc, const std::any&, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null || a.inputs[0].dptr == a.outputs[0].dptr) return;
  copy_in_order(oc.ctx, a.inputs[0], a.outputs[0], a.req[0], "make_loss");
}

// d = value (Write) or d += value (Add) for every element.
void set_gradient(const TBlob& d, OpReq req, double value, const char* op) {
  BRAID_REAL_TYPE_SWITCH(d.dtype, T, op, {
    T* g = d.ptr<T>();
    for (int64_t i = 0, n = d.size(); i < n; ++i) assign(g[i], req, static_cast<T>(value));
  });
}

OpDef pass_through_def(const std::string& name, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.list_arguments = args({"data"});
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape(name, in, out);
  };
  d.cpu.forward = pass_through;
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  return d;
}

}  // namespace

void register_make_loss_ops(Registry& r) {
  OpDef loss = pass_through_def("make_loss", "data as a loss: passed through, with a gradient of ones.");
  loss.parse = no_params("make_loss");
  loss.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] != OpReq::Null) set_gradient(a.in_grads[0], a.req[0], 1.0, "make_loss");
  };
  r.add(std::move(loss));

  OpDef legacy = pass_through_def("MakeLoss",
                                  "data as a loss: passed through, with a gradient of grad_scale, divided by the "
                                  "batch size (normalization='batch') or the count of elements above valid_thresh "
                                  "('valid').");
  legacy.parse = [](const AttrMap& a) {
    ParamReader rd(a, "MakeLoss");
    MakeLossParam p;
    p.grad_scale = rd.get<double>("grad_scale", 1.0);
    p.valid_thresh = rd.get<double>("valid_thresh", 0.0);
    p.normalization = rd.get_enum("normalization", {"null", "batch", "valid"}, "null");
    rd.finish();
    return std::any(p);
  };
  legacy.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<MakeLossParam>(pa);
    const TBlob& data = a.inputs[0];
    double divisor = 1.0;
    if (p.normalization == "batch") divisor = data.ndim() > 0 ? static_cast<double>(data.shape[0]) : 1.0;
    if (p.normalization == "valid") {
      int64_t valid = 0;
      BRAID_REAL_TYPE_SWITCH(data.dtype, T, "MakeLoss", {
        const T* v = data.ptr<T>();
        for (int64_t i = 0, n = data.size(); i < n; ++i) valid += v[i] > static_cast<T>(p.valid_thresh);
      });
      divisor = static_cast<double>(std::max<int64_t>(valid, 1));
    }
    set_gradient(a.in_grads[0], a.req[0], p.grad_scale / divisor, "MakeLoss");
  };
  r.add(std::move(legacy));
}

}  // namespace braid::op::detail
