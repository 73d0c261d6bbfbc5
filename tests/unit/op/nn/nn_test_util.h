#pragma once
// Test helpers of the nn operator tests: running one registered operator directly on
// host buffers (forward, backward), NDArray construction, and a bridge to PyTorch through
// Debian's /usr/bin/python3.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::test::nn_ops {

using Values = std::vector<double>;

/// One call of an operator: inputs are the arguments then the aux states.
struct OpCall {
  std::string op;
  op::AttrMap attrs;
  std::vector<Shape> shapes;
  std::vector<Values> values;
  bool is_train = false;
  DType dtype = DType::Float64;  // of every input and output
  uint64_t seed = 7;             // of the rng handed to the op
  /// Backward runs when non-empty: one gradient per output; an empty one is passed as a null
  /// blob (a hidden output nobody uses).
  std::vector<Values> out_grads = {};
  /// Per argument; default Write for all. Gradients start as 0.5 so that Add is visible.
  std::vector<op::OpReq> grad_req = {};
};

struct OpResult {
  std::vector<Shape> out_shapes;
  std::vector<Values> outputs;  // all, hidden ones included
  std::vector<Values> aux;      // after forward
  std::vector<Values> grads;    // one per argument
};

/// Infers shapes, runs forward and (with out_grads) backward; throws braid::Error like the op.
OpResult run_op(const OpCall& call);

/// An NDArray on cpu(0) holding `values` converted to `dtype`.
NDArray make_array(const Shape& shape, const Values& values, DType dtype = DType::Float32);
Values values_of(const NDArray& a);

/// Elementwise comparison with |a - b| <= atol + rtol * |b|; reports the first mismatches.
::testing::AssertionResult all_close(const Values& actual, const Values& expected, double rtol = 1e-6,
                                     double atol = 1e-9);

/// Runs a PyTorch script. Each named array is available to the script through `load(name)`
/// (a float64 numpy array of its shape); the script stores results with `save(name, array)`.
/// Returns the saved arrays flattened, or nullopt when /usr/bin/python3 has no torch.
std::optional<std::map<std::string, Values>> run_torch(const std::string& script,
                                                       const std::map<std::string, std::pair<Shape, Values>>& arrays);

/// Deterministic pseudo-random values in [lo, hi).
Values random_values(size_t n, double lo, double hi, uint64_t seed);

}  // namespace braid::test::nn_ops
