#pragma once
// Internal: the parameters of the fill operators (_zeros, _ones, _full) and _arange, shared by
// their CPU (init.cc) and GPU (init.cu) kernels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "braid/base/dtype.h"
#include "braid/base/shape.h"
#include "op/math/host_device.h"

namespace braid::op::detail {

struct InitParam {
  Shape shape;
  DType dtype = DType::Float32;
  double value = 0;  // _full's
};

struct ArangeParam {
  double start = 0, stop = 0, step = 1;
  int64_t repeat = 1;
  DType dtype = DType::Float32;
  int64_t count() const {
    int64_t n = static_cast<int64_t>(std::ceil((stop - start) / step));
    return std::max<int64_t>(n, 0) * repeat;
  }
  /// Element i of the output. Integer dtypes take start and step as integers first (NumPy's and
  /// MXNet's arange(1.3, 9, 1.3, dtype=int32) is 1, 2, 3, ...).
  template <class T>
  BRAID_HOST_DEVICE T at(int64_t i) const {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<int64_t>(start) + (i / repeat) * static_cast<int64_t>(step));
    else
      return static_cast<T>(start + static_cast<double>(i / repeat) * step);
  }
};

}  // namespace braid::op::detail
