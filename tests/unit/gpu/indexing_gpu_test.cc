// The CUDA kernels of take, pick, one_hot (src/op/tensor/indexing.cu), clip
// (elemwise_unary.cu), where, broadcast_to and broadcast_like (broadcast_ops.cu) against their CPU
// kernels, forward and gradients, float32 and float64, integer data and indices.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/random.h"
#include "common/error_message.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"

using namespace braid;

namespace {

// Indices in [-3, n + 3): some out of range on both sides, as float32 (MXNet's default) or int.
NDArray indices(const Shape& shape, int64_t n, DType dtype) {
  return nd::random_uniform(-3.0, static_cast<double>(n + 3), shape, cpu(), DType::Float32).astype(dtype);
}

TEST(IndexingGpu, CudaBuildsRegisterTheIndexingKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  for (const char* name : {"take", "pick", "clip", "where", "broadcast_to", "broadcast_like"})
    EXPECT_TRUE(test::has_gpu_kernels(name, true)) << name;
  EXPECT_TRUE(test::has_gpu_kernels("one_hot", false));
}

TEST(IndexingGpu, TakeMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(31);
  for (DType dtype : {DType::Float32, DType::Float64})
    for (DType index_dtype : {DType::Float32, DType::Int32, DType::Int64})
      for (const char* mode : {"clip", "wrap"})
        for (const char* axis : {"0", "1", "-1"}) {
          NDArray a = nd::random_uniform(-1.0, 1.0, Shape({5, 6, 4}), cpu(), dtype);
          // Repeated indices: their gradients add up.
          test::expect_op_gpu_matches_cpu("take", {{"axis", axis}, {"mode", mode}},
                                          {a, indices(Shape({3, 7}), 6, index_dtype)});
        }
}

TEST(IndexingGpu, TakeRaisesOnAnIndexOutOfRangeAsTheCpuDoes) {
  REQUIRE_GPU();
  NDArray a = nd::ones(Shape({4, 3}), gpu(0));
  NDArray idx = nd::array({0, 5}, Shape({2})).copyto(gpu(0));
  const std::string err = test::error_message([&] {
    nd::invoke1("take", {a, idx}, {{"mode", "raise"}}).wait_to_read();
  });
  EXPECT_NE(err.find("operator take"), std::string::npos) << err;
  EXPECT_NE(err.find("out of bounds"), std::string::npos) << err;
}

TEST(IndexingGpu, PickMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(32);
  for (DType dtype : {DType::Float32, DType::Float64})
    for (const char* mode : {"clip", "wrap"})
      for (const char* keepdims : {"False", "True"}) {
        NDArray data = nd::random_uniform(-1.0, 1.0, Shape({4, 5, 6}), cpu(), dtype);
        test::expect_op_gpu_matches_cpu(
            "pick", {{"axis", "1"}, {"mode", mode}, {"keepdims", keepdims}},
            {data, indices(keepdims[0] == 'T' ? Shape({4, 1, 6}) : Shape({4, 6}), 5, DType::Float32)});
        test::expect_op_gpu_matches_cpu(
            "pick", {{"axis", "-1"}, {"mode", mode}, {"keepdims", keepdims}},
            {data, indices(keepdims[0] == 'T' ? Shape({4, 5, 1}) : Shape({4, 5}), 6, DType::Int32)});
      }
}

TEST(IndexingGpu, OneHotMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(33);
  for (DType dtype : {DType::Float32, DType::Float64, DType::Int32})
    for (DType index_dtype : {DType::Float32, DType::Int64})
      test::expect_op_gpu_matches_cpu(
          "one_hot", {{"depth", "7"}, {"on_value", "2.5"}, {"off_value", "-1"}, {"dtype", dtype_name(dtype)}},
          {indices(Shape({3, 4}), 7, index_dtype)}, 0);
}

TEST(IndexingGpu, ClipWhereAndBroadcastsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(34);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    auto rand = [dtype](Shape s) { return nd::random_uniform(-1.0, 1.0, s, cpu(), dtype); };
    test::expect_op_gpu_matches_cpu("clip", {{"a_min", "-0.5"}, {"a_max", "0.25"}}, {rand(Shape({7, 9}))});
    NDArray condition = nd::random_uniform(0.0, 2.0, Shape({5, 6}), cpu(), DType::Float32).astype(DType::Int32);
    test::expect_op_gpu_matches_cpu("where", {}, {condition.astype(dtype), rand(Shape({5, 6})), rand(Shape({5, 6}))});
    test::expect_op_gpu_matches_cpu("where", {}, {condition, rand(Shape({5, 6})), rand(Shape({5, 6}))});
    NDArray rows = nd::random_uniform(0.0, 2.0, Shape({5}), cpu(), DType::Float32).astype(DType::Int32);
    test::expect_op_gpu_matches_cpu("where", {}, {rows, rand(Shape({5, 6})), rand(Shape({5, 6}))});
    test::expect_op_gpu_matches_cpu("broadcast_to", {{"shape", "(4, 3, 5)"}}, {rand(Shape({3, 1}))});
    test::expect_op_gpu_matches_cpu("broadcast_to", {{"shape", "(2, 0, 6)"}}, {rand(Shape({1, 5, 1}))});
    test::expect_op_gpu_matches_cpu("broadcast_like", {}, {rand(Shape({1, 4})), rand(Shape({3, 4}))});
  }
  NDArray ints = nd::random_uniform(-10.0, 10.0, Shape({50}), cpu(), DType::Float32).astype(DType::Int32);
  test::expect_op_gpu_matches_cpu("clip", {{"a_min", "-3"}, {"a_max", "4"}}, {ints}, 0);
}

}  // namespace
