// SVMOutput (MXNet 1.x): an output layer whose forward passes the scores through and whose
// backward, ignoring the output gradient, is the gradient of the one-vs-all hinge loss
// reg · Σ_j max(margin - s_j x_j, 0) (use_linear: L1-SVM) or its square (L2-SVM), where s_j is
// +1 for the label's class and -1 for the others.
#include "nn_util.h"
#include "op/tensor/strided_copy.h"

namespace braid::op::detail {
namespace {

struct SvmParam {
  double margin = 1, reg = 1;
  bool linear = false;
};

template <class T>
void svm_backward(const SvmParam& p, const BackwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const int64_t batch = data.shape[0], classes = data.size() / std::max<int64_t>(batch, 1);
  const T* x = data.ptr<T>();
  std::vector<int64_t> label(static_cast<size_t>(batch));
  BRAID_TYPE_SWITCH(a.inputs[1].dtype, L, "SVMOutput label", {
    const L* l = a.inputs[1].ptr<L>();
    for (int64_t i = 0; i < batch; ++i) {
      label[static_cast<size_t>(i)] = static_cast<int64_t>(l[i]);
      BRAID_CHECK(label[static_cast<size_t>(i)] >= 0 && label[static_cast<size_t>(i)] < classes,
                  "operator SVMOutput: label ", static_cast<double>(l[i]), " of sample ", i, " is not a class in [0, ",
                  classes, ")");
    }
  });
  write_each(a.in_grads[0].ptr<T>(), a.req[0], data.size(), [&](int64_t k) {
    const T s = label[static_cast<size_t>(k / classes)] == k % classes ? T(1) : T(-1);
    const T slack = static_cast<T>(p.margin) - s * x[k];
    if (slack <= T(0)) return T(0);
    return p.linear ? static_cast<T>(-p.reg) * s : static_cast<T>(-2 * p.reg) * s * slack;
  });
}

}  // namespace

void register_svm_output_ops(Registry& r) {
  OpDef d;
  d.name = "SVMOutput";
  d.doc = "Scores passed through; backward gives the gradient of the hinge loss (L2-SVM, or L1 with use_linear).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "SVMOutput");
    SvmParam p;
    p.margin = rd.get<double>("margin", p.margin);
    p.reg = rd.get<double>("regularization_coefficient", p.reg);
    p.linear = rd.get<bool>("use_linear", p.linear);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data", "label"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() >= 2, "operator SVMOutput: data must be (batch, classes); got shape ", in[0]);
    merge_shape(in[1], Shape({in[0][0]}), "SVMOutput", "label");
    merge_shape(out[0], in[0], "SVMOutput", "output");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (out[0] == kDTypeUnknown) out[0] = in[0];
    if (in[1] == kDTypeUnknown) in[1] = in[0];
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "SVMOutput", {
      const T* x = a.inputs[0].ptr<T>();
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.inputs[0].size(), [=](int64_t i) { return x[i]; });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[1] == OpReq::Write) fill_zero(a.in_grads[1]);
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "SVMOutput", { svm_backward<T>(param<SvmParam>(pa), a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
