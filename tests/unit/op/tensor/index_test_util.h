#pragma once
// Helpers of the reduce / indexing / ordering tests: arrays from values, and NumPy as the
// reference (Debian's /usr/bin/python3 evaluating expressions on data passed through files).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::test::tix {

/// An array holding `values` (converted to `dtype`).
NDArray array(const std::vector<double>& values, const Shape& shape, DType dtype = DType::Float64);

/// The elements as doubles (waits for the array).
std::vector<double> values(const NDArray& a);

/// Expects `f` to throw braid::Error whose message contains `needle`.
void expect_error_mentioning(const std::function<void()>& f, const std::string& needle);

/// `n` values in [lo, hi) from a fixed seed.
std::vector<double> random_values(int64_t n, double lo = -1.0, double hi = 1.0, unsigned seed = 42);

struct NumpyResult {
  std::vector<double> values;
  std::vector<int64_t> shape;
};

/// Evaluates each expression with NumPy (imported as np); the arrays are bound to the given
/// names as float64. One Python process for all of them. Fails the test on a Python error.
std::vector<NumpyResult> numpy(const std::vector<std::pair<std::string, NDArray>>& arrays,
                               const std::vector<std::string>& exprs);

/// Runs operator `name` forward, then backward with output gradients `out_grads` (one per
/// output), on float64 buffers. `grads` holds the starting input gradients (garbage, or values to
/// accumulate onto with req Add) and receives the result.
void run_backward(const std::string& name, const op::AttrMap& attrs, std::vector<std::vector<double>> inputs,
                  const std::vector<Shape>& shapes, std::vector<std::vector<double>> out_grads,
                  const std::vector<op::OpReq>& req, std::vector<std::vector<double>>& grads);

/// MXNet's shape for a NumPy result: a 0-d result is (1,).
Shape mxnet_shape(const NumpyResult& r);

}  // namespace braid::test::tix
