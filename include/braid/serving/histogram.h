#pragma once
/// A Prometheus histogram (cumulative buckets, sum, count) for /metrics: durations in seconds by
/// default, or other bounds (batch sizes).
#include <cstdint>
#include <string>
#include <vector>

namespace braid::serving {

class Histogram {
 public:
  /// Seconds, from half a millisecond to ten.
  static std::vector<double> seconds() {
    return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  }
  explicit Histogram(std::vector<double> bounds = seconds())
      : bounds_(std::move(bounds)), buckets_(bounds_.size(), 0) {}
  void add(double value);
  /// `name`_bucket{labels,le=...}, `name`_sum{labels}, `name`_count{labels} lines.
  std::string render(const std::string& name, const std::string& labels) const;

 private:
  std::vector<double> bounds_;
  std::vector<int64_t> buckets_;  // not cumulative
  int64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace braid::serving
