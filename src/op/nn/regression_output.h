#pragma once
// Internal: what the CPU (regression_output.cc) and GPU (regression_output.cu) kernels of
// LinearRegressionOutput, MAERegressionOutput and LogisticRegressionOutput share.
#include "braid/base/shape.h"
#include "op/math/unary_functions.h"

namespace braid::op::detail {

struct RegressionParam {
  double grad_scale = 1;
};

enum class RegressionKind { kLinear, kMAE, kLogistic };

/// The output: the data, or its sigmoid for the logistic layer.
template <class T>
BRAID_HOST_DEVICE T regression_output(RegressionKind kind, T x) {
  return kind == RegressionKind::kLogistic ? math::sigmoid(x) : x;
}

/// The loss gradient before scaling: out - label (squared error, and cross-entropy through the
/// sigmoid), or its sign (L1).
template <class T>
BRAID_HOST_DEVICE T regression_loss_grad(RegressionKind kind, T out, T label) {
  const T diff = out - label;
  if (kind == RegressionKind::kMAE) return T(diff > T(0)) - T(diff < T(0));
  return diff;
}

/// visit(name, kind, doc) for each of the three layers.
template <class Visit>
void for_each_regression_op(Visit&& visit) {
  visit("LinearRegressionOutput", RegressionKind::kLinear,
        "Identity forward; backward (out - label) * grad_scale / num_output (squared loss).");
  visit("MAERegressionOutput", RegressionKind::kMAE,
        "Identity forward; backward sign(out - label) * grad_scale / num_output (L1 loss).");
  visit("LogisticRegressionOutput", RegressionKind::kLogistic,
        "Sigmoid forward; backward (out - label) * grad_scale / num_output (logistic loss).");
}

/// Scales the loss gradient by: grad_scale / num_output, num_output = label.size / label.shape[0].
inline double regression_scale(const RegressionParam& p, const Shape& label) {
  return p.grad_scale / (static_cast<double>(label.size()) / static_cast<double>(label[0]));
}

}  // namespace braid::op::detail
