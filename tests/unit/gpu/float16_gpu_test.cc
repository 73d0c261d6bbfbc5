// float16 and bfloat16 on a GPU: operators against the CPU on the same 16-bit inputs (outputs and
// gradients; the layers' GPU kernels take 16-bit arrays as they are, the CPU computes on float32
// copies: src/op/common/float16_compute.cc), and LeNet and a small ResNet cast to 16 bits and
// trained with multi-precision SGD on gpu(0), imperative and hybridized with static_alloc
// (replayed as CUDA graphs), giving the losses of the same training on the CPU.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/autograd/autograd.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/gluon/trainer.h"
#include "braid/init/init.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"
#include "device/kernel_graph.h"

namespace braid::gluon {
namespace {

TEST(Float16Gpu, OperatorsMatchTheCpuOnTheSame16BitInputs) {
  REQUIRE_GPU();
  nd::seed(12);
  for (DType t : {DType::Float16, DType::BFloat16}) {
    // One unit in the last place of the 16-bit type: both devices round float32 results that
    // differ in their last bits only.
    const double ulp = t == DType::Float16 ? 2e-3 : 1.6e-2;
    auto r = [t](const Shape& s) { return nd::random_uniform(-1, 1, s).astype(t); };
    test::expect_op_gpu_matches_cpu("exp", {}, {r(Shape({5, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("elemwise_mul", {}, {r(Shape({5, 7})), r(Shape({5, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("broadcast_add", {}, {r(Shape({5, 7})), r(Shape({1, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("sum", {{"axis", "1"}}, {r(Shape({5, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("softmax", {}, {r(Shape({5, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("FullyConnected", {{"num_hidden", "4"}},
                                    {r(Shape({5, 7})), r(Shape({4, 7})), r(Shape({4}))}, ulp);
    test::expect_op_gpu_matches_cpu("Convolution", {{"kernel", "(3,3)"}, {"num_filter", "4"}, {"pad", "(1,1)"}},
                                    {r(Shape({2, 3, 8, 8})), r(Shape({4, 3, 3, 3})), r(Shape({4}))}, ulp);
    test::expect_op_gpu_matches_cpu("Pooling", {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "avg"}},
                                    {r(Shape({2, 3, 8, 8}))}, ulp);
  }
}

// The kernels the usual CNNs run on, each taking 16-bit arrays as they are on a GPU.
TEST(Float16Gpu, LayerKernelsMatchTheCpuOn16BitArrays) {
  REQUIRE_GPU();
  nd::seed(13);
  for (DType t : {DType::Float16, DType::BFloat16}) {
    const double ulp = t == DType::Float16 ? 2e-3 : 1.6e-2;
    auto r = [t](const Shape& s) { return nd::random_uniform(-1, 1, s).astype(t); };
    auto positive = [t](const Shape& s) { return nd::random_uniform(0.5, 1.5, s).astype(t); };
    test::expect_op_gpu_matches_cpu(
        "Convolution", {{"kernel", "(3,3)"}, {"num_filter", "8"}, {"stride", "(2,2)"}, {"no_bias", "True"}},
        {r(Shape({4, 5, 9, 9})), r(Shape({8, 5, 3, 3}))}, ulp);
    test::expect_op_gpu_matches_cpu(
        "Deconvolution", {{"kernel", "(2,2)"}, {"num_filter", "3"}, {"stride", "(2,2)"}, {"no_bias", "False"}},
        {r(Shape({2, 4, 5, 5})), r(Shape({4, 3, 2, 2})), r(Shape({3}))}, ulp);
    test::expect_op_gpu_matches_cpu(
        "BatchNorm", {{"fix_gamma", "False"}},
        {r(Shape({4, 3, 5, 5})), positive(Shape({3})), r(Shape({3})), r(Shape({3})), positive(Shape({3}))}, ulp);
    test::expect_op_gpu_matches_cpu("Activation", {{"act_type", "relu"}}, {r(Shape({6, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("Activation", {{"act_type", "tanh"}}, {r(Shape({6, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("Pooling", {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}},
                                    {r(Shape({2, 3, 8, 8}))}, ulp);
    test::expect_op_gpu_matches_cpu("Pooling", {{"global_pool", "True"}, {"kernel", "(1,1)"}, {"pool_type", "max"}},
                                    {r(Shape({2, 3, 40, 40}))}, ulp);
    test::expect_op_gpu_matches_cpu("FullyConnected", {{"num_hidden", "5"}, {"no_bias", "True"}},
                                    {r(Shape({3, 2, 4})), r(Shape({5, 8}))}, ulp);
    test::expect_op_gpu_matches_cpu("dot", {{"transpose_b", "True"}}, {r(Shape({4, 6})), r(Shape({5, 6}))}, ulp);
    test::expect_op_gpu_matches_cpu("batch_dot", {}, {r(Shape({3, 4, 6})), r(Shape({3, 6, 2}))}, ulp);
    test::expect_op_gpu_matches_cpu("elemwise_add", {}, {r(Shape({5, 7})), r(Shape({5, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("relu", {}, {r(Shape({5, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("_mul_scalar", {{"scalar", "0.3"}}, {r(Shape({5, 7}))}, ulp);
    test::expect_op_gpu_matches_cpu("Flatten", {}, {r(Shape({2, 3, 4}))}, ulp);
    test::expect_op_gpu_matches_cpu("transpose", {{"axes", "(1,0,2)"}}, {r(Shape({2, 3, 4}))}, ulp);
  }
}

TEST(Float16Gpu, TheLayersGpuKernelsTake16BitArraysAsTheyAre) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "a build without CUDA has no GPU kernels";
  for (const char* name :
       {"Convolution", "Deconvolution", "FullyConnected", "dot", "batch_dot", "BatchNorm", "Activation", "Pooling",
        "relu", "elemwise_add", "broadcast_mul", "_plus_scalar", "Flatten", "Reshape", "Cast"})
    EXPECT_TRUE(op::Registry::get().find(name).gpu.takes_16bit) << name;
}

// The gradient of sum(x * x) on both devices, float16.
TEST(Float16Gpu, GradientsMatchTheCpu) {
  REQUIRE_GPU();
  NDArray host = nd::random_uniform(-2, 2, Shape({64})).astype(DType::Float16);
  std::vector<NDArray> grads;
  for (Context ctx : {cpu(), gpu(0)}) {
    NDArray x = host.copyto(ctx);
    x.attach_grad();
    NDArray y;
    {
      autograd::RecordScope record;
      y = nd::sum(x * x);
    }
    y.backward();
    grads.push_back(x.grad());
  }
  test::expect_gpu_matches_cpu(grads[1], grads[0], 2e-3, "float16 gradient of sum(x*x)");
}

// The mean loss of each of five steps of `model` cast to `dtype` and trained with multi-precision
// SGD on `ctx`.
std::vector<float> float16_losses(const std::string& model, DType dtype, Context ctx, bool hybridize) {
  nd::seed(8);
  BlockPtr net = model_zoo::get_simple_model(model);
  net->initialize(std::make_shared<init::Xavier>(), {ctx});
  net->cast(dtype);
  if (hybridize) net->hybridize(true, /*static_alloc=*/true, /*static_shape=*/true);
  Trainer trainer(net->collect_params(), "sgd",
                  {{"learning_rate", "0.05"}, {"momentum", "0.9"}, {"multi_precision", "True"}});
  loss::SoftmaxCrossEntropyLoss loss_fn;
  std::vector<float> losses;
  for (int step = 0; step < 5; ++step) {
    NDArray x = nd::random_uniform(0, 1, Shape{32, 1, 28, 28}).astype(dtype).copyto(ctx);
    NDArray y = nd::random_randint(0, 10, Shape{32}).astype(dtype).copyto(ctx);
    NDArray loss;
    {
      autograd::RecordScope record;
      loss = loss_fn((*net)(x), y);
    }
    loss.backward();
    trainer.step(32);
    losses.push_back(nd::mean(loss.astype(DType::Float32)).scalar<float>());
  }
  return losses;
}

// Weights are compared through the losses: in float16 a result that rounds the other way on one
// device (a max-pooling tie then passes its gradient elsewhere) moves single weights a lot, while
// the loss of a batch averages such differences out.
// Hybridized, the forward and backward graphs are captured at the second step and replayed from
// the third: every kernel they run takes the 16-bit arrays as they are.
void expect_16bit_training_on_the_gpu_as_on_the_cpu(const std::string& model, DType dtype, double rtol) {
  const std::vector<float> on_cpu = float16_losses(model, dtype, cpu(), false);
  for (bool hybridize : {false, true}) {
    const uint64_t launches = gpu_runtime::KernelGraph::total_launches();
    const std::vector<float> on_gpu = float16_losses(model, dtype, gpu(0), hybridize);
    if (hybridize) {
      EXPECT_GE(gpu_runtime::KernelGraph::total_launches() - launches, 3u) << model;
    }
    ASSERT_EQ(on_gpu.size(), on_cpu.size());
    for (size_t i = 0; i < on_cpu.size(); ++i)
      EXPECT_NEAR(on_gpu[i], on_cpu[i], rtol * std::abs(on_cpu[i]))
          << model << " " << dtype_name(dtype) << (hybridize ? " hybridized" : " imperative") << " step " << i;
  }
}

TEST(Float16Gpu, Float16LenetTrainsOnTheGpuAsOnTheCpu) {
  REQUIRE_GPU();
  expect_16bit_training_on_the_gpu_as_on_the_cpu("lenet", DType::Float16, 1e-2);
}

// BatchNorm, residual sums and global pooling in bfloat16 (8 bits of mantissa: a wider margin).
TEST(Float16Gpu, BFloat16ResnetTrainsOnTheGpuAsOnTheCpu) {
  REQUIRE_GPU();
  expect_16bit_training_on_the_gpu_as_on_the_cpu("resnet-mini", DType::BFloat16, 4e-2);
}

}  // namespace
}  // namespace braid::gluon
