#pragma once
// Runs an optimizer over fixed inputs for a few steps and records the weights after each step,
// the Braid side of the golden-value tests; the same case goes to a Python reference as JSON.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/base/dtype.h"

namespace braid::test {

using Values = std::vector<double>;
/// steps x parameters x elements.
using Trajectory = std::vector<std::vector<Values>>;

struct FactorSpec {
  int step;
  double factor, stop_factor_lr, base_lr;
};

struct RunCase {
  std::string name, optimizer;
  std::map<std::string, std::string> params;  // MXNet spellings
  std::map<int, std::string> idx2name{{0, "fc_weight"}, {1, "fc_bias"}};
  std::map<std::string, double> lr_mult{}, wd_mult{};  // by name
  DType dtype = DType::Float64;                        // Float16 runs with multi_precision
  int steps = 4;
  std::optional<FactorSpec> factor_scheduler{};
};

/// The fixed parameters (a 3x4 weight, a 4-element bias) and gradients (steps x parameters);
/// every value is a multiple of 1/256 in [-1.5, 1.5], exact in float16, float32 and float64.
std::vector<Values> initial_weights();
std::vector<std::vector<Values>> gradients(int steps);

struct BraidRun {
  Trajectory weights;  // as stored (float16 values for Float16 runs)
  Trajectory masters;  // float32 master copies (Float16 runs only)
};
BraidRun run_braid(const RunCase& c);

/// The case with its inputs, for the reference scripts.
nlohmann::json to_json(const RunCase& c);

/// Largest absolute difference between two trajectories (inf when their sizes differ).
double max_abs_diff(const Trajectory& a, const Trajectory& b);
Trajectory from_json(const nlohmann::json& j);

}  // namespace braid::test
