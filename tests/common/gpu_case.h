#pragma once
// For the tests of the layer operators' GPU kernels (test helper): a case (op, attributes, input
// shapes, mode) run on cpu() and on gpu(0) with the same random inputs, comparing every output
// (the hidden ones too), the aux states after the forward, and every input gradient, both
// written and accumulated onto existing values.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/op/registry.h"
#include "common/gpu_compare.h"

namespace braid::test {

struct GpuCase {
  std::string op;
  op::AttrMap attrs;
  std::vector<Shape> inputs;  // the arguments, then the aux states
  /// Relative: a GPU value g passes against the CPU's c when |g - c| <= tolerance * (1 + |c|).
  double tolerance = 1e-8;    // float64 sums in another order differ far below this
  double low = -1, high = 1;  // where the random inputs lie
  bool train = true;
  /// Makes input i where uniform values do not fit (labels, indices); null, or a none array for
  /// an input: uniform values.
  std::function<NDArray(size_t i, const Shape& shape, DType dtype)> make_input{};
};

inline std::string describe(const GpuCase& c, DType dtype) {
  std::string s = cat(c.op, " ", dtype_name(dtype), c.train ? " train" : " predict");
  for (const auto& [k, v] : c.attrs) s += cat(" ", k, "=", v);
  return s;
}

inline void expect_gpu_matches_cpu(const GpuCase& c, DType dtype) {
  const std::string what = describe(c, dtype);
  SCOPED_TRACE(what);
  autograd::ModeScope mode(c.train);
  const op::OpDef& def = op::Registry::get().find(c.op);
  const size_t nargs = def.list_arguments(def.parse(c.attrs)).size();
  std::vector<NDArray> cpu_in, gpu_in;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    NDArray made = c.make_input ? c.make_input(i, c.inputs[i], dtype) : NDArray();
    cpu_in.push_back(made.is_none() ? nd::random_uniform(c.low, c.high, c.inputs[i], cpu(), dtype) : made);
    gpu_in.push_back(cpu_in.back().copyto(gpu(0)));
  }
  const std::vector<NDArray> cpu_out = nd::invoke_all(c.op, cpu_in, c.attrs);
  const std::vector<NDArray> gpu_out = nd::invoke_all(c.op, gpu_in, c.attrs);
  ASSERT_EQ(gpu_out.size(), cpu_out.size());
  for (size_t k = 0; k < cpu_out.size(); ++k)
    expect_gpu_matches_cpu(gpu_out[k], cpu_out[k], c.tolerance, cat(what, " output ", k));
  for (size_t i = nargs; i < cpu_in.size(); ++i)
    expect_gpu_matches_cpu(gpu_in[i], cpu_in[i], c.tolerance, cat(what, " aux state ", i - nargs));
  if (!def.has_gradient()) return;
  const std::any param = def.parse(c.attrs);
  const size_t visible = def.num_visible_outputs ? def.num_visible_outputs(param) : cpu_out.size();
  std::vector<NDArray> cpu_heads, gpu_heads;
  for (size_t k = 0; k < visible; ++k) {
    cpu_heads.push_back(nd::random_uniform(-1, 1, cpu_out[k].shape(), cpu(), cpu_out[k].dtype()));
    gpu_heads.push_back(cpu_heads.back().copyto(gpu(0)));
  }
  for (bool accumulate : {false, true}) {
    std::vector<NDArray> cpu_grads, gpu_grads;
    for (size_t i = 0; i < nargs; ++i) {
      cpu_grads.push_back(accumulate ? nd::random_uniform(-1, 1, c.inputs[i], cpu(), dtype)
                                     : nd::zeros(c.inputs[i], cpu(), dtype));
      gpu_grads.push_back(cpu_grads.back().copyto(gpu(0)));
    }
    nd::invoke_backward(c.op, c.attrs, cpu_heads, cpu_in, cpu_out, cpu_grads, accumulate);
    nd::invoke_backward(c.op, c.attrs, gpu_heads, gpu_in, gpu_out, gpu_grads, accumulate);
    for (size_t i = 0; i < nargs; ++i)
      expect_gpu_matches_cpu(gpu_grads[i], cpu_grads[i], c.tolerance,
                             cat(what, accumulate ? " accumulated" : " written", " gradient ", i));
  }
}

/// The case for float32 and float64 (float32 with `float32_tolerance`).
inline void expect_gpu_matches_cpu_both(GpuCase c, double float32_tolerance) {
  expect_gpu_matches_cpu(c, DType::Float64);
  c.tolerance = float32_tolerance;
  expect_gpu_matches_cpu(c, DType::Float32);
}

}  // namespace braid::test
