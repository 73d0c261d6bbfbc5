#pragma once
/// A Prometheus histogram of durations in seconds (cumulative buckets, sum, count), for /metrics.
#include <array>
#include <cstdint>
#include <string>

namespace braid::serving {

class Histogram {
 public:
  static constexpr std::array<double, 14> kBounds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                     0.1,    0.25,  0.5,    1,     2.5,  5,     10};
  void add(double seconds);
  /// `name`_bucket{labels,le=...}, `name`_sum{labels}, `name`_count{labels} lines.
  std::string render(const std::string& name, const std::string& labels) const;

 private:
  std::array<int64_t, kBounds.size()> buckets_{};  // not cumulative
  int64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace braid::serving
