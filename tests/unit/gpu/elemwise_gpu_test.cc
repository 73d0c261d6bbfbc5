// The CUDA kernels of the element-wise families (src/op/tensor/*.cu) against their CPU kernels:
// every op with a GPU kernel, forward and backward, float32 and float64. Where the build has
// CUDA, the kernels must be registered (checked everywhere); running them needs a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/op/registry.h"
#include "common/error_message.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"
#include "op/math/binary_functions.h"
#include "op/math/unary_functions.h"
#include "op/tensor/elemwise_scalar.h"

using namespace braid;

namespace {

// The ops of the element-wise unary and same-shape binary families.
std::vector<std::string> elementwise_ops() {
  std::vector<std::string> names;
  const auto add = [&names](const char* name, const char*, auto) { names.push_back(name); };
  op::math::for_each_unary_op(add);
  op::math::for_each_binary_op(add);
  return names;
}

TEST(ElemwiseGpu, CudaBuildsRegisterTheElementwiseKernels) {
  if (!gpu_runtime::built_with_cuda()) {
    for (const auto& name : op::Registry::get().names())
      EXPECT_FALSE(op::Registry::get().find(name).gpu.forward) << name;
    return;
  }
  for (const char* name : {"exp", "relu", "sigmoid", "fix", "elemwise_add", "_power", "_greater", "broadcast_add",
                           "broadcast_greater", "_plus_scalar", "_rpower_scalar", "_lesser_scalar"})
    EXPECT_TRUE(op::Registry::get().find(name).gpu.forward) << name;
  EXPECT_TRUE(op::Registry::get().find("relu").gpu.backward);
}

void expect_close(const NDArray& gpu_result, const NDArray& cpu_result, const std::string& what) {
  const std::vector<double> g = gpu_result.copyto(cpu()).to_vector<double>();
  const std::vector<double> c = cpu_result.to_vector<double>();
  ASSERT_EQ(g.size(), c.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], c[i], 1e-5 * (1 + std::abs(c[i]))) << what << " at " << i;
}

// Inside every op's domain (log, sqrt, reciprocal; the inverse sines and cosines, erfinv), away from ties,
// kinks and the poles of the gradients (arctanh's at 1).
std::pair<double, double> input_range(const std::string& op) {
  if (op == "arcsin" || op == "arccos" || op == "arctanh" || op == "erfinv") return {-0.9, 0.9};
  if (op == "arccosh") return {1.1, 3.0};
  return {0.2, 2.0};
}

TEST(ElemwiseGpu, EveryGpuKernelMatchesTheCpuKernel) {
  REQUIRE_GPU();
  nd::seed(7);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    for (const auto& name : elementwise_ops()) {
      const op::OpDef& def = op::Registry::get().find(name);
      const size_t nargs = def.list_arguments(def.parse({})).size();
      std::vector<NDArray> cpu_in, gpu_in, cpu_grads, gpu_grads;
      const auto [low, high] = input_range(name);
      for (size_t i = 0; i < nargs; ++i) {
        cpu_in.push_back(nd::random_uniform(low, high, Shape({1000}), cpu(), dtype));
        gpu_in.push_back(cpu_in.back().copyto(gpu(0)));
        cpu_grads.push_back(nd::zeros(cpu_in.back().shape(), cpu(), dtype));
        gpu_grads.push_back(cpu_grads.back().copyto(gpu(0)));
      }
      const std::string what = cat(name, " ", dtype_name(dtype));
      std::vector<NDArray> cpu_out = nd::invoke_all(name, cpu_in), gpu_out = nd::invoke_all(name, gpu_in);
      expect_close(gpu_out[0], cpu_out[0], what + " forward");
      if (!def.gpu.backward) continue;
      NDArray head = nd::random_uniform(-1.0, 1.0, cpu_out[0].shape(), cpu(), dtype);
      nd::invoke_backward(name, {}, {head}, cpu_in, cpu_out, cpu_grads);
      nd::invoke_backward(name, {}, {head.copyto(gpu(0))}, gpu_in, gpu_out, gpu_grads);
      for (size_t i = 0; i < nargs; ++i) expect_close(gpu_grads[i], cpu_grads[i], cat(what, " gradient ", i));
    }
  }
}

TEST(ElemwiseGpu, BroadcastingOpsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(8);
  // Broadcasting along leading, inner and trailing axes, on one side or both.
  const std::vector<std::pair<Shape, Shape>> shapes = {{Shape({2, 3}), Shape({1, 3})},
                                                       {Shape({4, 1, 5}), Shape({3, 1})},
                                                       {Shape({5}), Shape({2, 3, 5})},
                                                       {Shape({2, 1, 4, 1}), Shape({1, 3, 1, 6})}};
  for (DType dtype : {DType::Float32, DType::Float64})
    for (const auto& shape_pair : shapes)
      op::math::for_each_binary_op(
          [&, lhs = shape_pair.first, rhs = shape_pair.second](const char*, const char* stem, auto) {
            test::expect_op_gpu_matches_cpu(
                cat("broadcast_", stem), {},
                {nd::random_uniform(0.2, 2.0, lhs, cpu(), dtype), nd::random_uniform(0.2, 2.0, rhs, cpu(), dtype)});
          });
  NDArray a = nd::random_uniform(-9.0, 9.0, Shape({3, 4}), cpu(), DType::Float32).astype(DType::Int32);
  NDArray b = nd::random_uniform(1.0, 9.0, Shape({1, 4}), cpu(), DType::Float32).astype(DType::Int32);
  for (const char* op : {"broadcast_add", "broadcast_mul", "broadcast_div", "broadcast_greater"})
    test::expect_op_gpu_matches_cpu(op, {}, {a, b}, 0);
}

TEST(ElemwiseGpu, ScalarOpsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(9);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    NDArray x = nd::random_uniform(0.2, 2.0, Shape({10, 100}), cpu(), dtype);
    op::detail::for_each_scalar_op([&](const char* name, auto, auto) {
      for (const char* scalar : {"1.5", "-0.75"}) test::expect_op_gpu_matches_cpu(name, {{"scalar", scalar}}, {x});
    });
  }
  NDArray ints = nd::random_uniform(-9.0, 9.0, Shape({50}), cpu(), DType::Float32).astype(DType::Int32);
  for (const char* name : {"_plus_scalar", "_mul_scalar", "_rminus_scalar", "_maximum_scalar", "_greater_scalar"})
    test::expect_op_gpu_matches_cpu(name, {{"scalar", "3"}}, {ints}, 0);
}

TEST(ElemwiseGpu, OpsWithoutAGpuKernelSaySo) {
  REQUIRE_GPU();
  NDArray image = nd::ones(Shape({4, 5, 3})).copyto(gpu(0));
  const std::string err = braid::test::error_message([&] { nd::invoke1("_image_to_tensor", {image}).wait_to_read(); });
  EXPECT_NE(err.find("operator _image_to_tensor has no GPU kernel"), std::string::npos) << err;
}

// add_n over a few inputs (float16 and bfloat16 summed in float), over more inputs than one
// kernel pass takes, and written over its first input.
TEST(ElemwiseGpu, AddNMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(31);
  for (DType t : {DType::Float32, DType::Float64, DType::BFloat16}) {
    auto r = [t](const Shape& s) { return nd::random_uniform(-1, 1, s).astype(t); };
    test::expect_op_gpu_matches_cpu("add_n", {{"num_args", "3"}},
                                    {r(Shape({4, 5})), r(Shape({4, 5})), r(Shape({4, 5}))},
                                    t == DType::BFloat16 ? 1.6e-2 : 1e-6);
  }
  std::vector<NDArray> many;
  for (int i = 0; i < 33; ++i) many.push_back(nd::random_uniform(-1, 1, Shape({7})));
  test::expect_op_gpu_matches_cpu("add_n", {{"num_args", "33"}}, many, 1e-6);
  const NDArray a = nd::random_uniform(-1, 1, Shape({6})), b = nd::random_uniform(-1, 1, Shape({6}));
  NDArray on_gpu = a.copyto(gpu(0));
  nd::invoke("add_n", {on_gpu, b.copyto(gpu(0))}, {{"num_args", "2"}}, {on_gpu});
  test::expect_gpu_matches_cpu(on_gpu, nd::invoke1("add_n", {a, b}, {{"num_args", "2"}}), 1e-6,
                               "add_n written over its first input");
}

}  // namespace
