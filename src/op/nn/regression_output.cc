// LinearRegressionOutput, MAERegressionOutput and LogisticRegressionOutput (MXNet 1.x): output
// layers whose backward ignores the output gradient and gives the loss gradient
// d(out, label) * grad_scale / num_output, where num_output = label.size / label.shape[0].
#include "regression_output.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

bool infer_regression_shape(const std::string& op, std::vector<Shape>& in, std::vector<Shape>& out) {
  merge_shape(in[0], out[0], op, "data");
  if (in[0].known()) merge_shape(out[0], in[0], op, "output");  // partly known too, as MXNet
  if (!in[0].fully_known()) return false;
  const Shape& d = in[0];
  BRAID_CHECK(d.ndim() >= 1, "operator ", op, ": data must have at least one dimension");
  if (!in[1].known()) {
    // (batch, 1) data takes a (batch,) label by default, as MXNet.
    in[1] = d.ndim() == 2 && d[1] == 1 ? Shape({d[0]}) : d;
  }
  BRAID_CHECK(in[1].ndim() >= 1 && in[1][0] == d[0] && in[1].size() == d.size(), "operator ", op, ": label has shape ",
              in[1], " but data ", d, " needs a label with the same first dimension and number of elements");
  return true;
}

void add_regression(Registry& r, const std::string& name, RegressionKind kind, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = [name](const AttrMap& attrs) {
    ParamReader rd(attrs, name);
    RegressionParam p{rd.get<double>("grad_scale", 1.0)};
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data", "label"});
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_regression_shape(name, in, out);
  };
  d.cpu.forward = [name, kind](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      const T* x = a.inputs[0].ptr<T>();
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.inputs[0].size(),
                 [=](int64_t i) { return regression_output(kind, x[i]); });
    });
  };
  d.cpu.backward = [name, kind](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    zero_grad(a.in_grads[1], a.req[1]);
    const TBlob& label = a.inputs[1];
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      const T* out = a.outputs[0].ptr<T>();
      const T* l = label.ptr<T>();
      const T scale = static_cast<T>(regression_scale(param<RegressionParam>(pa), label.shape));
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.inputs[0].size(),
                 [=](int64_t i) { return regression_loss_grad(kind, out[i], l[i]) * scale; });
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_regression_ops(Registry& r) {
  for_each_regression_op(
      [&r](const char* name, RegressionKind kind, const char* doc) { add_regression(r, name, kind, doc); });
}

}  // namespace braid::op::detail
