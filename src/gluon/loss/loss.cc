#include "braid/gluon/loss.h"

#include <algorithm>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/reduce.h"
#include "gluon/py_repr.h"

namespace braid::gluon::loss {

Loss::Loss(const std::string& cls, std::optional<double> weight, int batch_axis, std::optional<std::string> prefix)
    : HybridBlock(to_lower(cls), std::move(prefix)), cls_(cls), weight_(weight), batch_axis_(batch_axis) {}

std::vector<NDArray> Loss::forward(const std::vector<NDArray>& inputs) {
  const size_t most = 3 + max_extra_inputs();
  BRAID_CHECK(inputs.size() >= 2 && inputs.size() <= most, cls_, ": takes pred, label and up to ", most - 2,
              " optional inputs (sample_weight", most > 3 ? ", pos_weight" : "", "), but got ", inputs.size(),
              " inputs");
  const NDArray &pred = inputs[0], &label = inputs[1];
  BRAID_CHECK(!pred.is_none() && !label.is_none(), cls_, ": pred and label must be arrays, not None");
  const std::vector<NDArray> extra(inputs.begin() + std::min<size_t>(3, inputs.size()), inputs.end());
  NDArray loss = compute(pred, label, extra);
  // MXNet's _apply_weighting: per-sample weights broadcast, then the scalar.
  if (inputs.size() > 2 && !inputs[2].is_none()) loss = loss * inputs[2];
  if (auto w = scalar_weight()) loss = loss * *w;
  const int axis = batch_axis_ < 0 ? batch_axis_ + loss.ndim() : batch_axis_;
  BRAID_CHECK(axis >= 0 && axis < loss.ndim(), cls_, ": batch_axis=", batch_axis_, " is outside the loss of shape ",
              loss.shape(), "; use an axis of pred");
  if (loss.ndim() == 1) return {loss};  // nothing to average: the batch axis is the only one
  return {nd::mean(loss, {axis}, false, true)};
}

NDArray Loss::operator()(const NDArray& pred, const NDArray& label, const NDArray& sample_weight) {
  return forward({pred, label, sample_weight})[0];
}

NDArray Loss::label_like(const NDArray& label, const NDArray& pred) const {
  if (label.shape() == pred.shape()) return label;
  BRAID_CHECK(label.size() == pred.size(), cls_, ": label has shape ", label.shape(), " and pred ", pred.shape(),
              "; the label needs as many elements as pred (it is reshaped to pred's shape)");
  return nd::invoke1("Reshape", {label}, {{"shape", pred.shape().str()}});
}

std::string Loss::describe() const {
  return cat(cls_, "(batch_axis=", batch_axis_, ", w=", gluon::detail::py_float(weight_), ")");
}

}  // namespace braid::gluon::loss
