#include "braid/metric/regression.h"

#include <cmath>

#include "braid/base/error.h"

namespace braid::metric {
namespace {

// A 1-D array of n values counts as (n, 1), as MXNet reshapes it.
Shape as_column(const Shape& s) { return s.ndim() == 1 ? Shape({s[0], 1}) : s; }

double identity(double m) { return m; }

}  // namespace

void BatchMeanMetric::add_batch_means(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds,
                                      double (*error)(double), double (*finish)(double)) {
  check_label_count(name_, labels, preds);
  for (size_t k = 0; k < labels.size(); ++k) {
    BRAID_CHECK(as_column(labels[k].shape()) == as_column(preds[k].shape()), "metric ", name_, ": label shape ",
                labels[k].shape(), " and prediction shape ", preds[k].shape(),
                " differ; reshape one so that they match (a 1-D array counts as one column)");
    std::vector<double> l = labels[k].to_vector<double>(), p = preds[k].to_vector<double>();
    double total = 0;
    for (size_t i = 0; i < l.size(); ++i) total += error(l[i] - p[i]);
    accumulate(finish(l.empty() ? 0.0 : total / static_cast<double>(l.size())), 1);
  }
}

void MAE::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  add_batch_means(
      labels, preds, [](double d) { return std::abs(d); }, identity);
}

void MSE::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  add_batch_means(
      labels, preds, [](double d) { return d * d; }, identity);
}

void RMSE::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  add_batch_means(
      labels, preds, [](double d) { return d * d; }, [](double m) { return std::sqrt(m); });
}

}  // namespace braid::metric
