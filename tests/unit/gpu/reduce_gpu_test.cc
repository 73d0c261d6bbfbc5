// The CUDA reduction kernels (src/op/tensor/reduce.cu, reduce_arg.cu) against their CPU kernels:
// every reduction over the axis combinations models use, forward and gradients, float32 and
// float64, the integer forward, and argmax/argmin.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/random.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"

using namespace braid;

namespace {

const char* const kValueReductions[] = {"sum", "mean", "nansum", "prod", "nanprod", "max", "min"};

// Attribute combinations over a (4, 5, 6, 7) input; the large ones exercise the block kernel.
const std::vector<op::AttrMap> kAxes = {
    {},
    {{"axis", "1"}},
    {{"axis", "-1"}, {"keepdims", "True"}},
    {{"axis", "(0, 2)"}},
    {{"axis", "(1, 3)"}, {"keepdims", "True"}},
    {{"axis", "0"}, {"exclude", "True"}},
    {{"axis", "(1, 2)"}, {"exclude", "True"}, {"keepdims", "True"}},
};

TEST(ReduceGpu, CudaBuildsRegisterTheReductionKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  for (const char* name : kValueReductions) EXPECT_TRUE(test::has_gpu_kernels(name, true)) << name;
  EXPECT_TRUE(test::has_gpu_kernels("norm", true));
  for (const char* name : {"argmax", "argmin", "argmax_channel"}) EXPECT_TRUE(test::has_gpu_kernels(name, false));
}

TEST(ReduceGpu, ValueReductionsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(21);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    // Near 1 so that products of up to 840 elements stay finite.
    NDArray x = nd::random_uniform(0.9, 1.1, Shape({4, 5, 6, 7}), cpu(), dtype);
    const double rtol = dtype == DType::Float32 ? 1e-4 : 1e-9;
    for (const char* op : kValueReductions)
      for (const auto& attrs : kAxes) test::expect_op_gpu_matches_cpu(op, attrs, {x}, rtol);
  }
}

// Large reductions take the block kernel, and over few outputs the two-pass one (several blocks
// per output element).
TEST(ReduceGpu, LargeReductionsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(22);
  NDArray x = nd::random_uniform(-1.0, 1.0, Shape({3, 100000}), cpu(), DType::Float32);
  for (const char* op : {"sum", "mean", "max", "min", "norm"}) {
    test::expect_op_gpu_matches_cpu(op, {}, {x}, 1e-4);
    test::expect_op_gpu_matches_cpu(op, {{"axis", "1"}}, {x}, 1e-4);
    test::expect_op_gpu_matches_cpu(op, {{"axis", "0"}}, {x}, 1e-4);
  }
  // Products of a million factors near 1 stay finite; their gradient needs the per-output parts.
  NDArray near_one = nd::random_uniform(0.9999, 1.0001, Shape({1000, 1000}), cpu(), DType::Float64);
  for (const char* op : {"prod", "nanprod", "sum", "nansum"}) {
    test::expect_op_gpu_matches_cpu(op, {}, {near_one}, 1e-9);
    test::expect_op_gpu_matches_cpu(op, {{"axis", "(0,)"}, {"exclude", "True"}}, {near_one}, 1e-9);
  }
}

TEST(ReduceGpu, ProdGradientWithZerosAndNanSkippingMatchTheCpu) {
  REQUIRE_GPU();
  // Rows with no zero, one zero, two zeros, and NaNs (skipped by the nan* forms).
  const double nan = std::nan("");
  NDArray x = nd::array(std::vector<double>{1, 2, 3, 4, 0, 2, 3, 4, 0, 0, 3, 4, nan, 2, 0, 4}, Shape({4, 4}), cpu(),
                        DType::Float64);
  for (const char* op : {"prod", "nanprod", "nansum"}) test::expect_op_gpu_matches_cpu(op, {{"axis", "1"}}, {x});
  NDArray finite =
      nd::array(std::vector<double>{1, 2, 3, 4, 0, 2, 3, 4, 0, 0, 3, 4}, Shape({3, 4}), cpu(), DType::Float64);
  test::expect_op_gpu_matches_cpu("prod", {{"axis", "1"}}, {finite});
  test::expect_op_gpu_matches_cpu("prod", {{"axis", "0"}}, {finite});
}

TEST(ReduceGpu, NormsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(23);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    NDArray x = nd::random_uniform(-1.0, 1.0, Shape({4, 5, 6}), cpu(), dtype);
    const double rtol = dtype == DType::Float32 ? 1e-4 : 1e-9;
    for (const char* ord : {"1", "2"})
      for (const op::AttrMap& axes :
           std::vector<op::AttrMap>{{}, {{"axis", "1"}}, {{"axis", "(0, 2)"}, {"keepdims", "True"}}}) {
        op::AttrMap attrs = axes;
        attrs["ord"] = ord;
        test::expect_op_gpu_matches_cpu("norm", attrs, {x}, rtol);
      }
  }
}

TEST(ReduceGpu, IntegerReductionsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(24);
  for (DType dtype : {DType::Int32, DType::Int64}) {
    NDArray x = nd::random_uniform(-50.0, 50.0, Shape({4, 5, 6}), cpu(), DType::Float32).astype(dtype);
    for (const char* op : {"sum", "mean", "max", "min"})
      for (const op::AttrMap& attrs : std::vector<op::AttrMap>{{}, {{"axis", "1"}}, {{"axis", "(0, 2)"}}})
        test::expect_op_gpu_matches_cpu(op, attrs, {x}, 0);
  }
}

TEST(ReduceGpu, ArgReductionsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(25);
  for (DType dtype : {DType::Float32, DType::Float64, DType::Int32}) {
    // Few distinct values: ties, which go to the first position.
    NDArray x =
        nd::random_uniform(0.0, 5.0, Shape({4, 5, 6}), cpu(), DType::Float32).astype(DType::Int32).astype(dtype);
    for (const char* op : {"argmax", "argmin"})
      for (const op::AttrMap& attrs :
           std::vector<op::AttrMap>{{}, {{"axis", "0"}}, {{"axis", "1"}, {"keepdims", "True"}}, {{"axis", "-1"}}})
        test::expect_op_gpu_matches_cpu(op, attrs, {x}, 0);
    test::expect_op_gpu_matches_cpu("argmax_channel", {}, {x}, 0);
  }
}

}  // namespace
