#include "braid/serving/histogram.h"

#include "braid/base/error.h"

namespace braid::serving {

void Histogram::add(double seconds) {
  for (size_t i = 0; i < kBounds.size(); ++i)
    if (seconds <= kBounds[i]) {
      ++buckets_[i];
      break;
    }
  ++count_;
  sum_ += seconds;
}

std::string Histogram::render(const std::string& name, const std::string& labels) const {
  std::string out;
  int64_t below = 0;
  for (size_t i = 0; i < kBounds.size(); ++i) {
    below += buckets_[i];
    out += cat(name, "_bucket{", labels, ",le=\"", kBounds[i], "\"} ", below, "\n");
  }
  out += cat(name, "_bucket{", labels, ",le=\"+Inf\"} ", count_, "\n");
  out += cat(name, "_sum{", labels, "} ", sum_, "\n");
  out += cat(name, "_count{", labels, "} ", count_, "\n");
  return out;
}

}  // namespace braid::serving
