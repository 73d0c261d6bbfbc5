// The GPU test table: every case of the gradient-check table (grad_cases.h) whose operator has
// GPU kernels runs on gpu(0) and on the CPU from the same inputs, float32 and float64, and the
// outputs and gradients (written and added) must agree. Needs a GPU; skips otherwise.
#include <gtest/gtest.h>

#include <random>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/creation.h"
#include "braid/op/registry.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"
#include "unit/op/grad_cases.h"

namespace braid::test {
namespace {

class GpuTable : public ::testing::TestWithParam<GradCase> {};

TEST_P(GpuTable, GpuKernelsMatchTheCpuKernels) {
  REQUIRE_GPU();
  const GradCase& c = GetParam();
  const op::OpDef& def = op::Registry::get().find(c.op);
  if (!def.gpu.forward) GTEST_SKIP() << c.op << " has no GPU kernel";
  if (def.needs_rng) GTEST_SKIP() << c.op << " samples: the devices draw different numbers";
  const bool spatial_op = c.op == "Convolution" || c.op == "Deconvolution" || c.op == "Pooling";
  if (spatial_op && c.shapes[0].ndim() == 5) GTEST_SKIP() << c.op << ": 3-D kernels run on the CPU only";
  std::mt19937_64 gen(77);
  const auto values = random_inputs(c, gen);
  autograd::ModeScope mode(c.is_train);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    std::vector<NDArray> inputs;
    for (size_t i = 0; i < values.size(); ++i)
      inputs.push_back(nd::array(values[i], c.shapes[i], cpu(), DType::Float64).astype(dtype));
    expect_op_gpu_matches_cpu(c.op, c.attrs, inputs, dtype == DType::Float32 ? 1e-4 : 1e-9);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GpuTable, ::testing::ValuesIn(all_grad_cases()), grad_case_name);

}  // namespace
}  // namespace braid::test
