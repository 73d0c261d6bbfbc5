// The CUDA kernels of topk, sort and argsort (src/op/tensor/ordering.cu) against their CPU
// kernels: every ret_typ, both directions, ties and NaN, values' gradients, float32 and float64.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/random.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"

using namespace braid;

namespace {

TEST(OrderingGpu, CudaBuildsRegisterTheOrderingKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  EXPECT_TRUE(test::has_gpu_kernels("topk", true));
  EXPECT_TRUE(test::has_gpu_kernels("sort", true));
  EXPECT_TRUE(test::has_gpu_kernels("argsort", false));
}

TEST(OrderingGpu, TopkSortArgsortMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(61);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    // Few distinct values: many ties, which keep their order.
    NDArray x =
        nd::random_uniform(0.0, 6.0, Shape({3, 40, 5}), cpu(), DType::Float32).astype(DType::Int32).astype(dtype);
    for (const char* axis : {"1", "-1", "None"})
      for (const char* ascend : {"False", "True"}) {
        for (const char* ret : {"indices", "value", "both", "mask"})
          test::expect_op_gpu_matches_cpu("topk", {{"axis", axis}, {"k", "3"}, {"ret_typ", ret}, {"is_ascend", ascend}},
                                          {x}, 0);
        test::expect_op_gpu_matches_cpu("topk", {{"axis", axis}, {"k", "0"}, {"ret_typ", "both"}, {"dtype", "int32"}},
                                        {x}, 0);
        test::expect_op_gpu_matches_cpu("sort", {{"axis", axis}, {"is_ascend", ascend}}, {x}, 0);
        test::expect_op_gpu_matches_cpu("argsort", {{"axis", axis}, {"is_ascend", ascend}, {"dtype", "float16"}}, {x},
                                        0);
      }
  }
}

TEST(OrderingGpu, NanRanksAboveEveryNumberAsOnTheCpu) {
  REQUIRE_GPU();
  const double nan = std::nan("");
  NDArray x = nd::array(std::vector<double>{3, nan, -1, 2, nan, 0, 5, -7}, Shape({2, 4}), cpu(), DType::Float64);
  for (const char* ascend : {"False", "True"}) {
    test::expect_op_gpu_matches_cpu("sort", {{"is_ascend", ascend}}, {x}, 0);
    test::expect_op_gpu_matches_cpu("argsort", {{"is_ascend", ascend}}, {x}, 0);
  }
}

TEST(OrderingGpu, IntegerDataMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(62);
  NDArray x = nd::random_uniform(-20.0, 20.0, Shape({6, 9}), cpu(), DType::Float32).astype(DType::Int64);
  test::expect_op_gpu_matches_cpu("topk", {{"k", "4"}, {"ret_typ", "both"}, {"dtype", "int64"}}, {x}, 0);
  test::expect_op_gpu_matches_cpu("sort", {{"axis", "0"}}, {x}, 0);
}

}  // namespace
