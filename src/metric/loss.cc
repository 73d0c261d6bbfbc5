#include "braid/metric/loss.h"

#include <cmath>

#include "braid/base/error.h"

namespace braid::metric {

CrossEntropy::CrossEntropy(double eps, std::string name) : EvalMetric(std::move(name)), eps_(eps) {}

void CrossEntropy::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  check_label_count(name_, labels, preds);
  for (size_t k = 0; k < labels.size(); ++k) {
    const NDArray& pred = preds[k];
    BRAID_CHECK(pred.ndim() == 2, "metric ", name_, ": predictions must be (batch, classes) probabilities, got ",
                pred.shape());
    const int64_t n = pred.shape()[0], classes = pred.shape()[1];
    std::vector<double> l = labels[k].to_vector<double>(), p = pred.to_vector<double>();
    BRAID_CHECK(static_cast<int64_t>(l.size()) == n, "metric ", name_, ": ", l.size(), " labels for ", n,
                " predictions");
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto c = static_cast<int64_t>(l[static_cast<size_t>(i)]);
      BRAID_CHECK(c >= 0 && c < classes, "metric ", name_, ": label ", l[static_cast<size_t>(i)], " of sample ", i,
                  " is not a class index in [0, ", classes, ")");
      total -= std::log(p[static_cast<size_t>(i * classes + c)] + eps_);
    }
    accumulate(total, n);
  }
}

void Loss::update(const std::vector<NDArray>&, const std::vector<NDArray>& preds) {
  for (const NDArray& pred : preds) {
    double total = 0;
    for (double v : pred.to_vector<double>()) total += v;
    accumulate(total, pred.size());
  }
}

}  // namespace braid::metric
