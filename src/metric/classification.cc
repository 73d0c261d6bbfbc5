#include "braid/metric/classification.h"

#include <cstdint>
#include <set>

#include "braid/base/error.h"
#include "braid/ndarray/reduce.h"

namespace braid::metric {
namespace {

// Class indices as MXNet reads them: values truncated to int32.
std::vector<int32_t> as_classes(const NDArray& a) {
  std::vector<double> v = a.to_vector<double>();
  return std::vector<int32_t>(v.begin(), v.end());
}

// Predicted classes of scores (batch, classes): the argmax of each row.
std::vector<int32_t> argmax_rows(const std::string& metric, const NDArray& pred) {
  BRAID_CHECK(pred.ndim() == 2, "metric ", metric, ": predictions must be (batch, classes) scores, got ", pred.shape());
  return as_classes(nd::argmax(pred, 1));
}

}  // namespace

Accuracy::Accuracy(int axis, std::string name) : EvalMetric(std::move(name)), axis_(axis) {}

void Accuracy::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  check_label_count(name_, labels, preds);
  for (size_t k = 0; k < labels.size(); ++k) {
    const NDArray& pred = preds[k];
    std::vector<int32_t> p = as_classes(pred.shape() == labels[k].shape() ? pred : nd::argmax(pred, axis_));
    std::vector<int32_t> l = as_classes(labels[k]);
    BRAID_CHECK(p.size() == l.size(), "metric ", name_, ": ", l.size(), " labels (shape ", labels[k].shape(), ") but ",
                p.size(), " predicted classes (predictions ", pred.shape(), ", classes along axis ", axis_, ")");
    int64_t correct = 0;
    for (size_t i = 0; i < p.size(); ++i) correct += p[i] == l[i];
    accumulate(static_cast<double>(correct), static_cast<int64_t>(p.size()));
  }
}

TopKAccuracy::TopKAccuracy(int top_k, std::string name)
    : EvalMetric(name + "_" + std::to_string(top_k)), top_k_(top_k) {
  BRAID_CHECK(top_k > 1, "TopKAccuracy: top_k must be above 1, got ", top_k, "; use Accuracy for top-1");
}

void TopKAccuracy::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  check_label_count(name_, labels, preds);
  for (size_t k = 0; k < labels.size(); ++k) {
    const NDArray& pred = preds[k];
    BRAID_CHECK(pred.ndim() == 2, "metric ", name_, ": predictions must be (batch, classes) scores, got ",
                pred.shape());
    const int64_t n = pred.shape()[0], classes = pred.shape()[1];
    std::vector<float> s = pred.to_vector<float>();
    std::vector<int32_t> l = as_classes(labels[k]);
    BRAID_CHECK(static_cast<int64_t>(l.size()) == n, "metric ", name_, ": ", l.size(), " labels for ", n,
                " predictions");
    int64_t correct = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = l[static_cast<size_t>(i)];
      if (c < 0 || c >= classes) continue;
      const float* row = s.data() + i * classes;
      // The label's rank: classes scoring higher, and equal ones at a lower index.
      int64_t rank = 0;
      for (int64_t j = 0; j < classes; ++j) rank += row[j] > row[c] || (row[j] == row[c] && j < c);
      correct += rank < top_k_;
    }
    accumulate(static_cast<double>(correct), n);
  }
}

double F1::Counts::fscore() const {
  double precision = tp + fp > 0 ? static_cast<double>(tp) / static_cast<double>(tp + fp) : 0.0;
  double recall = tp + fn > 0 ? static_cast<double>(tp) / static_cast<double>(tp + fn) : 0.0;
  return precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
}

F1::F1(std::string average, std::string name) : EvalMetric(std::move(name)) {
  BRAID_CHECK(average == "macro" || average == "micro", "F1: average must be 'macro' or 'micro', got '", average, "'");
  micro_ = average == "micro";
}

void F1::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  check_label_count(name_, labels, preds);
  for (size_t k = 0; k < labels.size(); ++k) {
    std::vector<int32_t> p = argmax_rows(name_, preds[k]), l = as_classes(labels[k]);
    BRAID_CHECK(p.size() == l.size(), "metric ", name_, ": ", l.size(), " labels for ", p.size(), " predictions");
    BRAID_CHECK(std::set<int32_t>(l.begin(), l.end()).size() <= 2, "metric ", name_,
                " only supports binary classification, but the labels hold more than two classes");
    for (size_t i = 0; i < p.size(); ++i) {
      const bool pred_true = p[i] == 1, label_true = l[i] == 1;
      for (Counts* c : {&local_, &global_}) {
        c->tp += pred_true && label_true;
        c->fp += pred_true && !label_true;
        c->fn += !pred_true && label_true;
        c->tn += !pred_true && !label_true;
      }
    }
  }
  if (micro_) {  // one score over everything seen
    sum_metric = local_.fscore() * static_cast<double>(local_.total());
    num_inst = local_.total();
    global_sum_metric = global_.fscore() * static_cast<double>(global_.total());
    global_num_inst = global_.total();
  } else {  // the score of this update, averaged over updates
    sum_metric += local_.fscore();
    global_sum_metric += global_.fscore();
    ++num_inst;
    ++global_num_inst;
    local_ = global_ = Counts{};
  }
}

void F1::reset() {
  EvalMetric::reset();
  local_ = global_ = Counts{};
}

void F1::reset_local() {
  EvalMetric::reset_local();
  local_ = Counts{};
}

}  // namespace braid::metric
