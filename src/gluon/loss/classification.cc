// The classification and distribution losses: softmax cross entropy, sigmoid binary cross
// entropy and Kullback-Leibler divergence.
#include "braid/base/error.h"
#include "braid/gluon/loss.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/indexing.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/reduce.h"

namespace braid::gluon::loss {
namespace {

NDArray log_softmax(const NDArray& x, int axis) {
  return nd::invoke1("log_softmax", {x}, {{"axis", std::to_string(axis)}});
}

}  // namespace

SoftmaxCrossEntropyLoss::SoftmaxCrossEntropyLoss(int axis, bool sparse_label, bool from_logits, LossOptions opt)
    : Loss("SoftmaxCrossEntropyLoss", opt.weight, opt.batch_axis, std::move(opt.prefix)),
      axis_(axis),
      sparse_label_(sparse_label),
      from_logits_(from_logits) {}

NDArray SoftmaxCrossEntropyLoss::compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>&) const {
  const int axis = axis_ < 0 ? axis_ + pred.ndim() : axis_;
  BRAID_CHECK(axis >= 0 && axis < pred.ndim(), cls(), ": axis=", axis_, " is outside pred of shape ", pred.shape());
  const NDArray logp = from_logits_ ? pred : log_softmax(pred, axis);
  if (!sparse_label_) return -nd::sum(logp * label_like(label, logp), {axis}, true);
  // Class indices: pred's shape without the class axis, or with it kept as 1. The loss keeps the
  // axis (size 1) so that sample weights shaped like the label broadcast as in MXNet.
  Shape kept = pred.shape();
  kept[axis] = 1;
  std::vector<int64_t> dropped;
  for (int i = 0; i < pred.ndim(); ++i)
    if (i != axis) dropped.push_back(pred.shape()[i]);
  BRAID_CHECK(label.shape() == kept || label.shape() == Shape(dropped), cls(), ": sparse label has shape ",
              label.shape(), " but pred ", pred.shape(), " needs ", Shape(dropped), " or ", kept,
              " (one class index per sample); pass sparse_label=false for probability labels");
  const NDArray index = label.shape() == kept ? label : nd::invoke1("Reshape", {label}, {{"shape", kept.str()}});
  return -nd::pick(logp, index, axis, true);
}

SigmoidBinaryCrossEntropyLoss::SigmoidBinaryCrossEntropyLoss(bool from_sigmoid, LossOptions opt)
    : Loss("SigmoidBinaryCrossEntropyLoss", opt.weight, opt.batch_axis, std::move(opt.prefix)),
      from_sigmoid_(from_sigmoid) {}

NDArray SigmoidBinaryCrossEntropyLoss::operator()(const NDArray& pred, const NDArray& label,
                                                  const NDArray& sample_weight, const NDArray& pos_weight) {
  return forward({pred, label, sample_weight, pos_weight})[0];
}

NDArray SigmoidBinaryCrossEntropyLoss::compute(const NDArray& pred, const NDArray& label,
                                               const std::vector<NDArray>& extra) const {
  const NDArray z = label_like(label, pred);
  const NDArray pos_weight = extra.empty() ? NDArray() : extra[0];
  if (!from_sigmoid_) {
    // log(1 + exp(-|x|)) never overflows; with max(x, 0) it makes -log(sigmoid) and -log(1 - sigmoid).
    const NDArray log1p_exp = nd::softrelu(-nd::abs(pred));
    if (pos_weight.is_none()) return nd::relu(pred) - pred * z + log1p_exp;
    const NDArray log_weight = 1.0 + (pos_weight - 1.0) * z;
    return pred - pred * z + log_weight * (log1p_exp + nd::relu(-pred));
  }
  const double eps = 1e-12;
  NDArray positive = nd::log(pred + eps) * z;
  if (!pos_weight.is_none()) positive = positive * pos_weight;
  return -(positive + nd::log(1.0 - pred + eps) * (1.0 - z));
}

KLDivLoss::KLDivLoss(bool from_logits, int axis, LossOptions opt)
    : Loss("KLDivLoss", opt.weight, opt.batch_axis, std::move(opt.prefix)), from_logits_(from_logits), axis_(axis) {}

NDArray KLDivLoss::compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>&) const {
  const NDArray logp = from_logits_ ? pred : log_softmax(pred, axis_);
  return label * (nd::log(label + 1e-12) - logp);
}

}  // namespace braid::gluon::loss
