#include "braid/serving/histogram.h"

#include "braid/base/error.h"

namespace braid::serving {

void Histogram::add(double value) {
  for (size_t i = 0; i < bounds_.size(); ++i)
    if (value <= bounds_[i]) {
      ++buckets_[i];
      break;
    }
  ++count_;
  sum_ += value;
}

std::string Histogram::render(const std::string& name, const std::string& labels) const {
  std::string out;
  int64_t below = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    below += buckets_[i];
    out += cat(name, "_bucket{", labels, ",le=\"", bounds_[i], "\"} ", below, "\n");
  }
  out += cat(name, "_bucket{", labels, ",le=\"+Inf\"} ", count_, "\n");
  out += cat(name, "_sum{", labels, "} ", sum_, "\n");
  out += cat(name, "_count{", labels, "} ", count_, "\n");
  return out;
}

}  // namespace braid::serving
