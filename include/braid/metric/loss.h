#pragma once
/// Loss-like metrics (MXNet 1.x's CrossEntropy and Loss).
#include "braid/metric/eval_metric.h"

namespace braid::metric {

/// Mean over samples of -log(p[label] + eps), preds being probabilities (batch, classes) and
/// labels class indices (batch) (name "cross-entropy").
class CrossEntropy : public EvalMetric {
 public:
  explicit CrossEntropy(double eps = 1e-12, std::string name = "cross-entropy");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;

 private:
  double eps_;
};

/// Mean of every element of the arrays fed as preds (e.g. a loss per sample); labels are ignored.
class Loss : public EvalMetric {
 public:
  explicit Loss(std::string name = "loss") : EvalMetric(std::move(name)) {}
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
};

}  // namespace braid::metric
