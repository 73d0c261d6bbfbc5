#pragma once
/// EvalMetric (MXNet 1.x's mx.metric.EvalMetric): accumulates an evaluation over batches.
/// update(labels, preds) takes one NDArray per output (waiting for them); get() gives the value
/// sum_metric / num_inst (NaN before any update). The "global" statistics are kept alongside
/// and survive reset_local() (MXNet's has_global_stats, used by Module's per-epoch logs).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::metric {

/// Names and values of a metric; one entry for a plain metric, one per child for a composite
/// (MXNet's get() gives a (name, value) pair or a pair of lists).
struct MetricValue {
  std::vector<std::string> names;
  std::vector<double> values;
  /// The single value of a plain metric; throws for a composite.
  double value() const;
  const std::string& name() const;
};

class EvalMetric {
 public:
  explicit EvalMetric(std::string name) : name_(std::move(name)) {}
  virtual ~EvalMetric() = default;

  const std::string& name() const { return name_; }
  /// Adds one batch: labels[i] goes with preds[i].
  virtual void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) = 0;
  /// Clears the local and the global statistics.
  virtual void reset();
  /// Clears the local statistics only.
  virtual void reset_local();
  /// (name, sum_metric / num_inst), NaN when num_inst is 0.
  virtual MetricValue get() const;
  /// The same from the global statistics.
  virtual MetricValue get_global() const;
  /// (name, value) pairs of get().
  std::vector<std::pair<std::string, double>> get_name_value() const;
  std::vector<std::pair<std::string, double>> get_global_name_value() const;

  double sum_metric = 0, global_sum_metric = 0;
  int64_t num_inst = 0, global_num_inst = 0;

 protected:
  /// Adds to the local and the global statistics.
  void accumulate(double sum, int64_t count);
  std::string name_;
};

using MetricPtr = std::shared_ptr<EvalMetric>;

/// Several metrics updated together (MXNet's CompositeEvalMetric); get() lists every child's
/// names and values in order.
class CompositeEvalMetric : public EvalMetric {
 public:
  explicit CompositeEvalMetric(std::vector<MetricPtr> metrics = {}, std::string name = "composite");
  void add(MetricPtr metric);
  /// Child `index`; throws naming the valid range.
  const MetricPtr& get_metric(size_t index) const;
  size_t size() const { return metrics_.size(); }

  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  void reset() override;
  void reset_local() override;
  MetricValue get() const override;
  MetricValue get_global() const override;

 private:
  /// Every child's names and values from `result` (get or get_global), in order.
  MetricValue joined(MetricValue (EvalMetric::*result)() const) const;
  std::vector<MetricPtr> metrics_;
};

/// Throws unless labels and preds hold as many arrays (MXNet's check_label_shapes).
void check_label_count(const std::string& metric, const std::vector<NDArray>& labels,
                       const std::vector<NDArray>& preds);

}  // namespace braid::metric
