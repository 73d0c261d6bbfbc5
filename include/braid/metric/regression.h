#pragma once
/// Regression metrics (MXNet 1.x's MAE, MSE, RMSE). Each update adds the mean over the batch of
/// each (label, pred) pair as one instance, so get() is the mean of the batch means. A 1-D
/// array counts as a column (n, 1); label and pred must then have the same shape.
#include "braid/metric/eval_metric.h"

namespace braid::metric {

/// The shared update: for each (label, pred) pair, finish(mean over elements of error(label -
/// pred)) is added as one instance.
class BatchMeanMetric : public EvalMetric {
 protected:
  using EvalMetric::EvalMetric;
  void add_batch_means(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds, double (*error)(double),
                       double (*finish)(double));
};

class MAE : public BatchMeanMetric {
 public:
  explicit MAE(std::string name = "mae") : BatchMeanMetric(std::move(name)) {}
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
};

class MSE : public BatchMeanMetric {
 public:
  explicit MSE(std::string name = "mse") : BatchMeanMetric(std::move(name)) {}
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
};

/// sqrt of each batch's MSE, averaged over batches.
class RMSE : public BatchMeanMetric {
 public:
  explicit RMSE(std::string name = "rmse") : BatchMeanMetric(std::move(name)) {}
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
};

}  // namespace braid::metric
