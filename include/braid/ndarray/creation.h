#pragma once
/// Creating arrays (MXNet's nd.zeros, nd.ones, nd.full, nd.empty, nd.arange, nd.array).
#include <initializer_list>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::nd {

NDArray empty(const Shape& shape, Context ctx = cpu(), DType dtype = DType::Float32);
NDArray zeros(const Shape& shape, Context ctx = cpu(), DType dtype = DType::Float32);
NDArray ones(const Shape& shape, Context ctx = cpu(), DType dtype = DType::Float32);
NDArray full(const Shape& shape, double value, Context ctx = cpu(), DType dtype = DType::Float32);
/// Values start, start+step, ... below stop, each repeated `repeat` times.
NDArray arange(double start, double stop, double step = 1.0, int64_t repeat = 1, Context ctx = cpu(),
               DType dtype = DType::Float32);
/// An array holding `values` (converted to `dtype`), of `shape` (default: 1-D).
template <class T>
NDArray array(const std::vector<T>& values, const Shape& shape = Shape(), Context ctx = cpu(),
              DType dtype = DType::Float32);
inline NDArray array(std::initializer_list<float> values, const Shape& shape = Shape(), Context ctx = cpu(),
                     DType dtype = DType::Float32) {
  return array(std::vector<float>(values), shape, ctx, dtype);
}

}  // namespace braid::nd
