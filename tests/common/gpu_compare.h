#pragma once
// Running an operator's GPU kernels against its CPU kernels on the same inputs (test helper for
// tests/unit/gpu/): forward, and where the GPU has a backward, the gradients written (req Write)
// and accumulated (req Add).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/op/registry.h"

namespace braid::test {

/// Every element of `gpu_result` within `rtol` (relative, 1 + |expected| scaled) of `cpu_result`.
inline void expect_gpu_matches_cpu(const NDArray& gpu_result, const NDArray& cpu_result, double rtol,
                                   const std::string& what) {
  ASSERT_EQ(gpu_result.shape(), cpu_result.shape()) << what;
  ASSERT_EQ(gpu_result.dtype(), cpu_result.dtype()) << what;
  const std::vector<double> g = gpu_result.copyto(cpu()).to_vector<double>();
  const std::vector<double> c = cpu_result.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(c[i])) {
      ASSERT_TRUE(std::isnan(g[i])) << what << " at " << i;
      continue;
    }
    ASSERT_NEAR(g[i], c[i], rtol * (1 + std::abs(c[i]))) << what << " at " << i;
  }
}

/// Runs `op` with `attrs` on `cpu_inputs` (arguments, then aux states) and on copies of them on
/// gpu(0) and compares every output, then (where the op has a GPU backward) the gradients of every
/// argument for random output gradients, overwritten and added to random gradients already there
/// (for floating inputs: float32, float64, float16, bfloat16).
inline void expect_op_gpu_matches_cpu(const std::string& op, const op::AttrMap& attrs,
                                      const std::vector<NDArray>& cpu_inputs, double rtol = 1e-5) {
  std::string what = op;
  for (const auto& [key, value] : attrs) what += cat(" ", key, "=", value);
  if (!cpu_inputs.empty()) what += cat(" ", dtype_name(cpu_inputs[0].dtype()));
  std::vector<NDArray> gpu_inputs;
  for (const auto& x : cpu_inputs) gpu_inputs.push_back(x.copyto(gpu(0)));
  std::vector<NDArray> cpu_out = nd::invoke_all(op, cpu_inputs, attrs);
  std::vector<NDArray> gpu_out = nd::invoke_all(op, gpu_inputs, attrs);
  ASSERT_EQ(cpu_out.size(), gpu_out.size()) << what;
  for (size_t k = 0; k < cpu_out.size(); ++k)
    expect_gpu_matches_cpu(gpu_out[k], cpu_out[k], rtol, cat(what, " output ", k));

  const op::OpDef& def = op::Registry::get().find(op);
  if (!def.gpu.backward) return;
  for (const auto& x : cpu_inputs)
    if (!is_floating(x.dtype())) return;
  const size_t nargs = def.list_arguments(def.parse(attrs)).size();  // the rest are aux states
  std::vector<NDArray> cpu_heads, gpu_heads;
  for (const auto& y : cpu_out) {
    // Outputs of other dtypes (topk's indices) get gradients their kernels do not read.
    cpu_heads.push_back(nd::random_uniform(-1.0, 1.0, y.shape(), cpu(), DType::Float64).astype(y.dtype()));
    gpu_heads.push_back(cpu_heads.back().copyto(gpu(0)));
  }
  for (bool accumulate : {false, true}) {
    std::vector<NDArray> cpu_grads, gpu_grads;
    for (size_t i = 0; i < nargs; ++i) {
      const NDArray& x = cpu_inputs[i];
      cpu_grads.push_back(nd::random_uniform(-1.0, 1.0, x.shape(), cpu(), DType::Float64).astype(x.dtype()));
      gpu_grads.push_back(cpu_grads.back().copyto(gpu(0)));
    }
    nd::invoke_backward(op, attrs, cpu_heads, cpu_inputs, cpu_out, cpu_grads, accumulate);
    nd::invoke_backward(op, attrs, gpu_heads, gpu_inputs, gpu_out, gpu_grads, accumulate);
    for (size_t i = 0; i < cpu_grads.size(); ++i)
      expect_gpu_matches_cpu(gpu_grads[i], cpu_grads[i], rtol,
                             cat(what, accumulate ? " added" : " written", " gradient ", i));
  }
}

/// Whether `op` has GPU kernels registered (forward, and backward where asked).
inline bool has_gpu_kernels(const std::string& op, bool with_backward) {
  const op::OpDef& def = op::Registry::get().find(op);
  return static_cast<bool>(def.gpu.forward) && (!with_backward || static_cast<bool>(def.gpu.backward));
}

}  // namespace braid::test
