#pragma once
/// Per-spatial-axis sizes of convolution and pooling layers, as MXNet's "int or tuple" arguments:
/// `2` means 2 on every spatial axis, `{3, 5}` gives each axis its own value.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "braid/base/shape.h"

namespace braid::gluon::nn {

class Dims {
 public:
  Dims(int64_t v) : values_{v} {}  // NOLINT: implicit, like Python's int argument
  Dims(std::initializer_list<int64_t> v) : values_(v) {}
  explicit Dims(std::vector<int64_t> v) : values_(std::move(v)) {}

  /// The values for `nd` spatial axes: one value repeated, or exactly nd values. Throws naming
  /// `layer` and the argument `what` otherwise.
  Shape expand(int nd, const std::string& layer, const std::string& what) const;
  const std::vector<int64_t>& values() const { return values_; }

 private:
  std::vector<int64_t> values_;
};

}  // namespace braid::gluon::nn
