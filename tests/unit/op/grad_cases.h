#pragma once
// The gradient-check table: every differentiable operator needs at least one case here.
// Each operator family contributes its cases from its own grad_cases_<family>.cc.
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "braid/op/op_def.h"

namespace braid::test {

struct GradCase {
  std::string op;
  op::AttrMap attrs;
  std::vector<Shape> shapes;  // arguments, then aux states
  /// Range of the uniform random values of each input (default [-1, 1] for all).
  std::vector<std::pair<double, double>> ranges = {};
  /// Inputs whose gradient is not checked (labels, indices). Aux states are never checked.
  std::vector<int> skip = {};
  /// Overrides the random values (e.g. integer labels, well-separated values for max).
  std::function<void(std::vector<std::vector<double>>& inputs)> fill = nullptr;
  /// Inputs that are stacks of symmetric matrices (linalg.potrf, syevd): they are made symmetric
  /// (the lower triangle copied up), their finite differences move entries (i, j) and (j, i)
  /// together and are compared with the analytic g_ij + g_ji.
  std::vector<int> symmetric = {};
  bool is_train = false;
  /// The loss weighs the visible outputs only: hidden outputs that hold state for the backward
  /// (CTCLoss's gradient) are not differentiated by it.
  bool visible_outputs_only = false;
  double rtol = 1e-4;
  double atol = 1e-6;
  double eps = 1e-5;
};

/// Test names show the op, not the bytes of the case.
inline void PrintTo(const GradCase& c, std::ostream* os) { *os << c.op; }
/// Parameterized test names: the op and the case's index.
std::string grad_case_name(const ::testing::TestParamInfo<GradCase>& info);

std::vector<GradCase> tensor_grad_cases();    // tensor/grad_cases_tensor.cc
std::vector<GradCase> matrix_grad_cases();    // tensor/grad_cases_matrix.cc
std::vector<GradCase> index_grad_cases();     // tensor/grad_cases_index.cc (reduce, indexing, ordering)
std::vector<GradCase> nn_conv_grad_cases();   // nn/grad_cases_nn_conv.cc
std::vector<GradCase> nn_basic_grad_cases();  // nn/grad_cases_nn_basic.cc
std::vector<GradCase> image_grad_cases();     // image/grad_cases_image.cc
std::vector<GradCase> linalg_grad_cases();    // linalg/grad_cases_linalg.cc
// NN op families add their lists here and in all_grad_cases().

/// Every family's cases (grad_cases_all.cc).
std::vector<GradCase> all_grad_cases();
/// The inputs of a case: uniform in its ranges, then its fill.
std::vector<std::vector<double>> random_inputs(const GradCase& c, std::mt19937_64& gen);

}  // namespace braid::test
