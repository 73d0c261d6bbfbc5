// SoftmaxOutput (alias Softmax) and softmax_cross_entropy, the softmax losses of MXNet 1.x.
// SoftmaxOutput's forward is a softmax; its backward ignores the output gradient (unless
// out_grad) and gives the cross-entropy gradient (softmax - onehot(label)) * grad_scale / norm.
#include <cmath>
#include <iostream>
#include <mutex>

#include "softmax_kernels.h"
#include "softmax_output.h"

namespace braid::op::detail {
namespace {

std::any parse_softmax_output(const AttrMap& attrs) {
  ParamReader rd(attrs, "SoftmaxOutput");
  SoftmaxOutputParam p;
  p.grad_scale = rd.get<double>("grad_scale", p.grad_scale);
  p.ignore_label = rd.get<double>("ignore_label", p.ignore_label);
  p.multi_output = rd.get<bool>("multi_output", p.multi_output);
  p.use_ignore = rd.get<bool>("use_ignore", p.use_ignore);
  p.preserve_shape = rd.get<bool>("preserve_shape", p.preserve_shape);
  p.normalization = rd.get_enum("normalization", {"null", "batch", "valid"}, p.normalization);
  p.out_grad = rd.get<bool>("out_grad", p.out_grad);
  p.smooth_alpha = rd.get<double>("smooth_alpha", p.smooth_alpha);
  rd.finish();
  BRAID_CHECK(p.smooth_alpha >= 0 && p.smooth_alpha <= 1,
              "operator SoftmaxOutput: smooth_alpha must be in [0, 1], got ", p.smooth_alpha);
  return p;
}

bool infer_softmax_output_shape(const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out,
                                std::vector<Shape>&) {
  const auto& p = param<SoftmaxOutputParam>(pa);
  merge_shape(in[0], out[0], "SoftmaxOutput", "data");
  if (in[0].known()) merge_shape(out[0], in[0], "SoftmaxOutput", "output");  // partly known too, as MXNet
  if (!in[0].fully_known()) return false;
  const Shape& d = in[0];
  if (in[1] == d) return true;  // the label gives class probabilities
  BRAID_CHECK(d.ndim() >= (p.preserve_shape ? 1 : 2), "operator SoftmaxOutput: data of shape ", d, " needs at least ",
              p.preserve_shape ? 1 : 2, " dimensions");
  std::vector<Shape> accepted;
  if (p.multi_output) {
    const AxisSplit s = AxisSplit::around(d, 1);
    Shape rest(d.dims().begin() + 2, d.dims().end()), ones = d;
    std::vector<int64_t> l2{d[0]};
    l2.insert(l2.end(), rest.dims().begin(), rest.dims().end());
    ones[1] = 1;
    accepted = {Shape({d[0], s.inner}), Shape(l2), ones};
  } else if (p.preserve_shape) {
    accepted = {Shape(d.dims().begin(), d.dims().end() - 1)};
  } else {
    accepted = {Shape({d[0]})};
  }
  if (!in[1].known()) in[1] = accepted[0];
  bool ok = false;
  for (const auto& s : accepted) ok = ok || in[1] == s;
  std::string list;
  for (const auto& s : accepted) list += cat(list.empty() ? "" : " or ", s);
  BRAID_CHECK(ok, "operator SoftmaxOutput: label has shape ", in[1], " but data ", d, " needs ", list,
              " (class indices), or the data's shape (probabilities)");
  return true;
}

}  // namespace

void note_labels_outside(int64_t count, int64_t classes) {
  static std::once_flag once;
  if (count > 0)
    std::call_once(once, [&] {
      std::cerr << "SoftmaxOutput: " << count << " labels are outside [0, " << classes
                << "); as in MXNet their rows get no target (set use_ignore=True and ignore_label to skip them)\n";
    });
}

namespace {

// The class a label names, or -1 for a label outside [0, classes) (NaN included).
template <class T>
int64_t class_or_none(T label, int64_t classes) {
  const double v = static_cast<double>(label);
  return v >= 0 && v < static_cast<double>(classes) ? static_cast<int64_t>(v) : -1;
}

template <class T>
int64_t class_of(T label, int64_t classes, const char* op) {
  const auto c = static_cast<int64_t>(label);
  BRAID_CHECK(c >= 0 && c < classes, "operator ", op, ": label ", label, " is outside [0, ", classes,
              "); set use_ignore=True and ignore_label to skip it");
  return c;
}

template <class T>
void softmax_output_backward(const SoftmaxOutputParam& p, const BackwardArgs& a) {
  const T* out = a.outputs[0].ptr<T>();
  const T* label = a.inputs[1].ptr<T>();
  const Shape& shape = a.inputs[0].shape;
  const int64_t n = shape.size();
  std::vector<T> grad(static_cast<size_t>(n));
  double scale = p.grad_scale;
  if (a.inputs[1].shape == shape) {  // probabilities as labels: no normalization
    for (int64_t i = 0; i < n; ++i) grad[i] = out[i] - label[i];
  } else {
    const AxisSplit s = class_split(p, shape);
    const int64_t nlabels = a.inputs[1].size();
    const auto ignore = static_cast<int64_t>(p.ignore_label);
    const double smooth = p.multi_output || s.n < 2 ? 0.0 : p.smooth_alpha;
    int64_t valid = nlabels, outside = 0;
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t k = 0; k < s.inner; ++k) {
        const T l = label[o * s.inner + k];
        const bool ignored = static_cast<double>(l) == static_cast<double>(ignore);
        if (ignored) --valid;
        const bool skipped = p.use_ignore && ignored;
        const int64_t c = class_or_none(l, s.n);
        outside += !skipped && c < 0;
        for (int64_t i = 0; i < s.n; ++i) {
          const int64_t j = (o * s.n + i) * s.inner + k;
          const double target = i == c ? 1 - smooth : smooth / static_cast<double>(s.n - 1);
          grad[j] = skipped ? T(0) : static_cast<T>(out[j] - target);
        }
      }
    note_labels_outside(outside, s.n);
    // MXNet's normalization: "valid" divides by the count of labels other than ignore_label (at
    // least 1), "batch" by the number of labels (multi_output: by the batch size, and "null" and
    // "batch" by the number of positions per sample too).
    if (p.normalization == "valid") scale /= static_cast<double>(std::max<int64_t>(valid, 1));
    if (p.normalization == "batch") scale /= static_cast<double>(p.multi_output ? s.outer : nlabels);
    if (p.multi_output && p.normalization != "valid") scale /= static_cast<double>(s.inner);
  }
  const T* og = p.out_grad ? a.out_grads[0].ptr<T>() : nullptr;
  const T sc = static_cast<T>(scale);
  write_each(a.in_grads[0].ptr<T>(), a.req[0], n, [&](int64_t i) { return grad[i] * sc * (og ? og[i] : T(1)); });
}

OpDef softmax_output_op() {
  OpDef d;
  d.name = "SoftmaxOutput";
  d.doc =
      "Softmax with a cross-entropy gradient: forward softmax(data); backward "
      "(softmax - onehot(label)) * grad_scale / normalization, ignoring the output gradient.";
  d.parse = parse_softmax_output;
  d.list_arguments = args({"data", "label"});
  d.infer_shape = infer_softmax_output_shape;
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const TBlob& data = a.inputs[0];
    const AxisSplit s = class_split(param<SoftmaxOutputParam>(pa), data.shape);
    BRAID_REAL_TYPE_SWITCH(data.dtype, T, "SoftmaxOutput", {
      write_with_req(a.outputs[0].ptr<T>(), data.size(), a.req[0],
                     [&](T* y) { softmax_forward(data.ptr<T>(), y, s, SoftmaxSpec{}); });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    zero_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "SoftmaxOutput",
                           { softmax_output_backward<T>(param<SoftmaxOutputParam>(pa), a); });
  };
  return d;
}

// softmax_cross_entropy: data (batch, classes), label (batch,) -> (1,), the summed
// -log(max(softmax[label], 1e-8)) (MXNet's clamp).
bool ce_infer_shape(const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
  merge_shape(out[0], Shape({1}), "softmax_cross_entropy", "output");
  if (!in[0].known()) return false;
  BRAID_CHECK(in[0].ndim() == 2, "operator softmax_cross_entropy: data must be 2-D (batch, classes), got ", in[0]);
  merge_shape(in[1], Shape({in[0][0]}), "softmax_cross_entropy", "label (one class index per row of data)");
  return all_known(in);
}

template <class T>
std::vector<T> ce_softmax(const TBlob& data) {
  std::vector<T> p(static_cast<size_t>(data.size()));
  softmax_forward(data.ptr<T>(), p.data(), AxisSplit{data.shape[0], data.shape[1], 1}, SoftmaxSpec{});
  return p;
}

OpDef softmax_cross_entropy_op() {
  OpDef d;
  d.name = "softmax_cross_entropy";
  d.doc = "Sum over the batch of -log(softmax(data)[label]); data (batch, classes), label (batch,).";
  d.parse = no_params("softmax_cross_entropy");
  d.list_arguments = args({"data", "label"});
  d.infer_shape = ce_infer_shape;
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "softmax_cross_entropy", {
      const std::vector<T> p = ce_softmax<T>(a.inputs[0]);
      const T* label = a.inputs[1].ptr<T>();
      const int64_t rows = a.inputs[0].shape[0], classes = a.inputs[0].shape[1];
      double loss = 0;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t c = class_of(label[r], classes, "softmax_cross_entropy");
        loss -= std::log(std::max(static_cast<double>(p[r * classes + c]), 1e-8));
      }
      assign(a.outputs[0].ptr<T>()[0], a.req[0], static_cast<T>(loss));
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    zero_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "softmax_cross_entropy", {
      std::vector<T> p = ce_softmax<T>(a.inputs[0]);
      const T* label = a.inputs[1].ptr<T>();
      const int64_t rows = a.inputs[0].shape[0], classes = a.inputs[0].shape[1];
      for (int64_t r = 0; r < rows; ++r) p[r * classes + class_of(label[r], classes, "softmax_cross_entropy")] -= T(1);
      const T g = a.out_grads[0].ptr<T>()[0];
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.inputs[0].size(), [&](int64_t i) { return p[i] * g; });
    });
  };
  return d;
}

}  // namespace

void register_softmax_output_ops(Registry& r) {
  r.add(softmax_output_op());
  r.add_alias("Softmax", "SoftmaxOutput");
  r.add(softmax_cross_entropy_op());
}

}  // namespace braid::op::detail
