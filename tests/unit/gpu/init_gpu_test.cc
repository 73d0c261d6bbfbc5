// The CUDA kernels of the creation and copy operators (src/op/tensor/init.cu) against their CPU
// kernels: fills of every dtype, _copyto and Cast between dtypes, forward and backward.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"

using namespace braid;

namespace {

const DType kAllDTypes[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::UInt8,
                            DType::Int8,    DType::Int32,   DType::Int64,   DType::Bool};

TEST(InitGpu, CudaBuildsRegisterTheCreationKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  for (const char* name : {"_zeros", "_ones", "_full", "_arange"})
    EXPECT_TRUE(test::has_gpu_kernels(name, false)) << name;
  for (const char* name : {"_copyto", "Cast"}) EXPECT_TRUE(test::has_gpu_kernels(name, true)) << name;
}

TEST(InitGpu, FillsMatchTheCpu) {
  REQUIRE_GPU();
  // Values every dtype holds after truncation (a float outside an integer type's range has no
  // defined conversion).
  for (DType dtype : {DType::Float32, DType::Float64, DType::UInt8, DType::Int8, DType::Int32, DType::Int64}) {
    for (const auto& [op, value] : {std::pair{"_zeros", ""}, {"_ones", ""}, {"_full", "2.75"}, {"_full", "100.5"}}) {
      op::AttrMap attrs{{"shape", "(3, 1000)"}, {"dtype", dtype_name(dtype)}};
      if (*value) attrs["value"] = value;
      NDArray on_cpu = nd::invoke1(op, {}, attrs);
      attrs["ctx"] = "gpu(0)";
      NDArray on_gpu = nd::invoke1(op, {}, attrs);
      EXPECT_EQ(on_gpu.ctx(), gpu(0));
      test::expect_gpu_matches_cpu(on_gpu, on_cpu, 0, cat(op, " ", value, " ", dtype_name(dtype)));
    }
  }
}

TEST(InitGpu, ArangeMatchesTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {DType::Float32, DType::Float64, DType::Int32, DType::Int64})
    for (const op::AttrMap& attrs :
         std::vector<op::AttrMap>{{{"start", "5"}},
                                  {{"start", "-2.5"}, {"stop", "7"}, {"step", "0.5"}},
                                  {{"start", "10"}, {"stop", "0"}, {"step", "-3"}, {"repeat", "2"}}}) {
      op::AttrMap with_dtype = attrs;
      with_dtype["dtype"] = dtype_name(dtype);
      NDArray on_cpu = nd::invoke1("_arange", {}, with_dtype);
      with_dtype["ctx"] = "gpu(0)";
      test::expect_gpu_matches_cpu(nd::invoke1("_arange", {}, with_dtype), on_cpu, 1e-12, "_arange");
    }
}

TEST(InitGpu, FillOfSixteenBitFloatsKeepsTheCpuBits) {
  REQUIRE_GPU();
  for (DType dtype : {DType::Float16, DType::BFloat16}) {
    // The CPU fills float32 and float64 only: its conversion of the float32 fill is the reference.
    NDArray on_cpu = nd::full(Shape({5, 7}), 1.3, cpu(), DType::Float32).astype(dtype);
    NDArray on_gpu = nd::full(Shape({5, 7}), 1.3, gpu(0), dtype);
    EXPECT_EQ(on_gpu.copyto(cpu()).astype(DType::Float32).to_vector<float>(),
              on_cpu.astype(DType::Float32).to_vector<float>())
        << dtype_name(dtype);
  }
}

TEST(InitGpu, CastBetweenEveryPairOfDTypesMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(3);
  // Values every dtype holds (small non-negative integers and halves) plus rounding cases.
  NDArray source = nd::random_uniform(0.0, 100.0, Shape({4, 250}), cpu(), DType::Float64);
  for (DType from : kAllDTypes) {
    NDArray x = source.astype(from);
    for (DType to : kAllDTypes) {
      const std::string what = cat("Cast ", dtype_name(from), " -> ", dtype_name(to));
      NDArray expected = nd::invoke1("Cast", {x}, {{"dtype", dtype_name(to)}});
      NDArray got = nd::invoke1("Cast", {x.copyto(gpu(0))}, {{"dtype", dtype_name(to)}});
      test::expect_gpu_matches_cpu(got, expected, 0, what);
    }
  }
}

TEST(InitGpu, CopyAndCastGradientsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(4);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    NDArray x = nd::random_uniform(-1.0, 1.0, Shape({2, 3, 5}), cpu(), dtype);
    test::expect_op_gpu_matches_cpu("_copyto", {}, {x});
    test::expect_op_gpu_matches_cpu("identity", {}, {x});
    test::expect_op_gpu_matches_cpu("Cast", {{"dtype", dtype_name(dtype)}}, {x});
  }
  // Across dtypes the gradient is written converted back (accumulating across dtypes is refused
  // on both devices).
  NDArray x = nd::random_uniform(-1.0, 1.0, Shape({64}), cpu(), DType::Float32);
  NDArray y_cpu = nd::invoke1("Cast", {x}, {{"dtype", "float64"}});
  NDArray y_gpu = nd::invoke1("Cast", {x.copyto(gpu(0))}, {{"dtype", "float64"}});
  test::expect_gpu_matches_cpu(y_gpu, y_cpu, 0, "Cast float32 -> float64");
  NDArray head = nd::random_uniform(-1.0, 1.0, Shape({64}), cpu(), DType::Float64);
  NDArray dx_cpu = nd::zeros(Shape({64})), dx_gpu = nd::zeros(Shape({64}), gpu(0));
  nd::invoke_backward("Cast", {{"dtype", "float64"}}, {head}, {x}, {y_cpu}, {dx_cpu});
  nd::invoke_backward("Cast", {{"dtype", "float64"}}, {head.copyto(gpu(0))}, {x.copyto(gpu(0))}, {y_gpu}, {dx_gpu});
  test::expect_gpu_matches_cpu(dx_gpu, dx_cpu, 1e-6, "Cast float32 -> float64 gradient");
}

TEST(InitGpu, ResetArraysZerosEveryInput) {
  REQUIRE_GPU();
  NDArray a = nd::ones(Shape({3, 4}), gpu(0)), b = nd::ones(Shape({5}), gpu(0), DType::BFloat16);
  nd::invoke("reset_arrays", {a, b}, {{"num_arrays", "2"}}, {});
  EXPECT_EQ(a.to_vector<float>(), std::vector<float>(12, 0.0f));
  EXPECT_EQ(b.to_vector<float>(), std::vector<float>(5, 0.0f));
}

}  // namespace
