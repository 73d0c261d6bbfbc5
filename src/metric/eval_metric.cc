#include "braid/metric/eval_metric.h"

#include <limits>

#include "braid/base/error.h"

namespace braid::metric {
namespace {

MetricValue ratio(const std::string& name, double sum, int64_t count) {
  double v = count == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(count);
  return {{name}, {v}};
}

std::vector<std::pair<std::string, double>> zipped(const MetricValue& v) {
  std::vector<std::pair<std::string, double>> out;
  for (size_t i = 0; i < v.names.size(); ++i) out.emplace_back(v.names[i], v.values[i]);
  return out;
}

}  // namespace

double MetricValue::value() const {
  BRAID_CHECK(values.size() == 1, "MetricValue::value: this result holds ", values.size(),
              " values (a composite metric); read names and values instead");
  return values[0];
}

const std::string& MetricValue::name() const {
  BRAID_CHECK(names.size() == 1, "MetricValue::name: this result holds ", names.size(),
              " names (a composite metric); read names and values instead");
  return names[0];
}

void EvalMetric::reset() {
  reset_local();
  global_sum_metric = 0;
  global_num_inst = 0;
}

void EvalMetric::reset_local() {
  sum_metric = 0;
  num_inst = 0;
}

MetricValue EvalMetric::get() const { return ratio(name_, sum_metric, num_inst); }
MetricValue EvalMetric::get_global() const { return ratio(name_, global_sum_metric, global_num_inst); }
std::vector<std::pair<std::string, double>> EvalMetric::get_name_value() const { return zipped(get()); }
std::vector<std::pair<std::string, double>> EvalMetric::get_global_name_value() const { return zipped(get_global()); }

void EvalMetric::accumulate(double sum, int64_t count) {
  sum_metric += sum;
  global_sum_metric += sum;
  num_inst += count;
  global_num_inst += count;
}

void check_label_count(const std::string& metric, const std::vector<NDArray>& labels,
                       const std::vector<NDArray>& preds) {
  BRAID_CHECK(labels.size() == preds.size(), "metric ", metric, ": ", labels.size(), " label arrays but ", preds.size(),
              " prediction arrays; give one label array per output");
}

CompositeEvalMetric::CompositeEvalMetric(std::vector<MetricPtr> metrics, std::string name)
    : EvalMetric(std::move(name)) {
  for (auto& m : metrics) add(std::move(m));
}

void CompositeEvalMetric::add(MetricPtr metric) {
  BRAID_CHECK(metric, "CompositeEvalMetric::add: the metric is null");
  metrics_.push_back(std::move(metric));
}

const MetricPtr& CompositeEvalMetric::get_metric(size_t index) const {
  BRAID_CHECK(index < metrics_.size(), "CompositeEvalMetric: metric index ", index, " is out of range (it holds ",
              metrics_.size(), " metrics)");
  return metrics_[index];
}

void CompositeEvalMetric::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  for (auto& m : metrics_) m->update(labels, preds);
}

void CompositeEvalMetric::reset() {
  for (auto& m : metrics_) m->reset();
}

void CompositeEvalMetric::reset_local() {
  for (auto& m : metrics_) m->reset_local();
}

MetricValue CompositeEvalMetric::get() const { return joined(&EvalMetric::get); }
MetricValue CompositeEvalMetric::get_global() const { return joined(&EvalMetric::get_global); }

MetricValue CompositeEvalMetric::joined(MetricValue (EvalMetric::*result)() const) const {
  MetricValue all;
  for (const auto& m : metrics_) {
    MetricValue v = ((*m).*result)();
    all.names.insert(all.names.end(), v.names.begin(), v.names.end());
    all.values.insert(all.values.end(), v.values.begin(), v.values.end());
  }
  return all;
}

}  // namespace braid::metric
