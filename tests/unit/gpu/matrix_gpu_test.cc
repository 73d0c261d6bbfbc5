// The data-movement operators on a GPU (src/op/tensor/strided_copy.cu: their CPU kernels moving
// data through the GPU's strided copy) against the CPU: forward and gradients, float32 and
// float64, and the integer forward.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/random.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"

using namespace braid;

namespace {

struct Case {
  std::string op;
  op::AttrMap attrs;
  Shape shape;
};

// One input of `shape` each.
const std::vector<Case> kOneInputCases = {
    {"Reshape", {{"shape", "(4, -1)"}}, Shape({2, 6, 5})},
    {"Reshape", {{"shape", "(0, -3)"}}, Shape({2, 6, 5})},
    {"Flatten", {}, Shape({3, 4, 5})},
    {"expand_dims", {{"axis", "1"}}, Shape({3, 4})},
    {"squeeze", {}, Shape({3, 1, 4, 1})},
    {"transpose", {}, Shape({3, 4, 5})},
    {"transpose", {{"axes", "(0, 2, 1)"}}, Shape({2, 33, 65})},
    {"transpose", {{"axes", "(2, 0, 3, 1)"}}, Shape({2, 3, 4, 5})},
    {"transpose", {{"axes", "(5, 3, 1, 0, 2, 4)"}}, Shape({2, 3, 2, 3, 2, 3})},
    {"flip", {{"axis", "(0, 2)"}}, Shape({3, 4, 5})},
    {"slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "-1"}}, Shape({3, 6, 5})},
    {"slice_axis", {{"axis", "0"}, {"begin", "2"}, {"end", "None"}}, Shape({5, 7})},
    {"tile", {{"reps", "(2, 1, 3)"}}, Shape({3, 4})},
    {"repeat", {{"repeats", "3"}, {"axis", "1"}}, Shape({3, 4, 2})},
    {"repeat", {{"repeats", "2"}}, Shape({3, 4})},
    {"split", {{"num_outputs", "3"}, {"axis", "1"}}, Shape({2, 6, 5})},
    {"split", {{"num_outputs", "4"}, {"axis", "0"}, {"squeeze_axis", "True"}}, Shape({4, 3})},
    {"_split_v2", {{"indices", "(1, 4)"}, {"axis", "1"}}, Shape({2, 6, 3})},
    {"depth_to_space", {{"block_size", "2"}}, Shape({2, 8, 3, 2})},
    {"space_to_depth", {{"block_size", "2"}}, Shape({2, 3, 4, 6})},
    {"diag", {{"k", "1"}}, Shape({4, 5})},
    {"diag", {}, Shape({4})},
    {"diag", {{"axis1", "1"}, {"axis2", "2"}}, Shape({2, 3, 4})},
};

TEST(MatrixGpu, CudaBuildsRegisterTheDataMovementKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  for (const char* name :
       {"Reshape", "Flatten", "expand_dims", "squeeze", "transpose", "flip", "slice_axis", "tile", "repeat", "concat",
        "stack", "split", "_split_v2", "slice_like", "depth_to_space", "space_to_depth", "diag"})
    EXPECT_TRUE(test::has_gpu_kernels(name, true)) << name;
}

TEST(MatrixGpu, OneInputOpsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(11);
  for (DType dtype : {DType::Float32, DType::Float64})
    for (const Case& c : kOneInputCases)
      test::expect_op_gpu_matches_cpu(c.op, c.attrs, {nd::random_uniform(-1.0, 1.0, c.shape, cpu(), dtype)});
}

TEST(MatrixGpu, JoiningOpsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(12);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    auto rand = [dtype](Shape s) { return nd::random_uniform(-1.0, 1.0, s, cpu(), dtype); };
    test::expect_op_gpu_matches_cpu("concat", {{"num_args", "3"}, {"dim", "1"}},
                                    {rand(Shape({2, 3, 4})), rand(Shape({2, 1, 4})), rand(Shape({2, 5, 4}))});
    test::expect_op_gpu_matches_cpu("concat", {{"num_args", "2"}, {"dim", "0"}},
                                    {rand(Shape({2, 3})), rand(Shape({4, 3}))});
    test::expect_op_gpu_matches_cpu("stack", {{"num_args", "2"}, {"axis", "1"}},
                                    {rand(Shape({3, 4})), rand(Shape({3, 4}))});
    test::expect_op_gpu_matches_cpu("stack", {{"num_args", "3"}, {"axis", "-1"}},
                                    {rand(Shape({2, 5})), rand(Shape({2, 5})), rand(Shape({2, 5}))});
  }
}

TEST(MatrixGpu, IntegerArraysMoveUnchanged) {
  REQUIRE_GPU();
  nd::seed(13);
  for (DType dtype : {DType::Int32, DType::Int64, DType::UInt8})  // the CPU refuses float16 here
    for (const Case& c : kOneInputCases) {
      NDArray x = nd::random_uniform(0.0, 100.0, c.shape, cpu(), DType::Float32).astype(dtype);
      std::vector<NDArray> on_cpu = nd::invoke_all(c.op, {x}, c.attrs);
      std::vector<NDArray> on_gpu = nd::invoke_all(c.op, {x.copyto(gpu(0))}, c.attrs);
      for (size_t k = 0; k < on_cpu.size(); ++k)
        test::expect_gpu_matches_cpu(on_gpu[k], on_cpu[k], 0, cat(c.op, " ", dtype_name(dtype)));
    }
}

// pad in its three modes, 4-D and 5-D; the gradient sums what each element was copied to.
TEST(MatrixGpu, PadMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(32);
  for (const char* mode : {"constant", "edge", "reflect"}) {
    test::expect_op_gpu_matches_cpu("pad",
                                    {{"mode", mode}, {"pad_width", "(0,0,0,0,1,2,2,1)"}, {"constant_value", "0.5"}},
                                    {nd::random_uniform(-1, 1, Shape({2, 3, 4, 5}))}, 1e-6);
    test::expect_op_gpu_matches_cpu("pad", {{"mode", mode}, {"pad_width", "(0,0,0,0,1,1,2,0,0,2)"}},
                                    {nd::random_uniform(-1, 1, Shape({1, 2, 3, 4, 3}), cpu(), DType::Float64)}, 1e-12);
  }
}

TEST(MatrixGpu, SliceLikeMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(33);
  test::expect_op_gpu_matches_cpu("slice_like", {{"axes", "(0, 2)"}},
                                  {nd::random_uniform(-1, 1, Shape({4, 5, 6})), nd::zeros(Shape({2, 5, 3}))}, 1e-7);
}

}  // namespace
