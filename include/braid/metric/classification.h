#pragma once
/// Classification metrics (MXNet 1.x's Accuracy, TopKAccuracy, F1).
#include "braid/metric/eval_metric.h"

namespace braid::metric {

/// Fraction of predictions equal to the label. A prediction shaped like its label holds class
/// indices; otherwise it holds scores and its argmax along `axis` is the class. Values are
/// truncated to int32 before comparing, and both sides are flattened (their sizes must agree).
class Accuracy : public EvalMetric {
 public:
  explicit Accuracy(int axis = 1, std::string name = "accuracy");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;

 private:
  int axis_;
};

/// Fraction of samples whose label is among the top_k scores of its prediction (batch, classes);
/// name "top_k_accuracy_<k>". top_k must be above 1 (use Accuracy for 1), and is capped at the
/// number of classes. Among equal scores the lower class index ranks first.
class TopKAccuracy : public EvalMetric {
 public:
  explicit TopKAccuracy(int top_k, std::string name = "top_k_accuracy");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;

 private:
  int top_k_;
};

/// F1 score of a binary classification: preds are (batch, 2) scores (class = argmax), labels 0/1.
/// average "macro": the mean of the F1 of each update; "micro": one F1 over all samples seen.
class F1 : public EvalMetric {
 public:
  explicit F1(std::string average = "macro", std::string name = "f1");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  void reset() override;
  void reset_local() override;

  /// True/false positives/negatives.
  struct Counts {
    int64_t tp = 0, fp = 0, fn = 0, tn = 0;
    int64_t total() const { return tp + fp + fn + tn; }
    double fscore() const;
  };

 private:
  bool micro_;
  Counts local_, global_;
};

}  // namespace braid::metric
