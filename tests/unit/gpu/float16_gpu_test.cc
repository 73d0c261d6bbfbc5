// float16 and bfloat16 on a GPU (src/op/common/float16_compute.cc): operators against the CPU on
// the same 16-bit inputs, and LeNet cast to float16 trained with multi-precision SGD on gpu(0),
// imperative and hybridized with static_alloc (whose graphs are then refused, not wrong), giving
// the losses of the same training on the CPU.
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

// The mean loss of each of five steps of LeNet cast to float16 and trained with multi-precision
// SGD on `ctx`.
std::vector<float> float16_lenet_losses(Context ctx, bool hybridize) {
  nd::seed(8);
  BlockPtr net = model_zoo::get_simple_model("lenet");
  net->initialize(std::make_shared<init::Xavier>(), {ctx});
  net->cast(DType::Float16);
  if (hybridize) net->hybridize(true, /*static_alloc=*/true, /*static_shape=*/true);
  Trainer trainer(net->collect_params(), "sgd",
                  {{"learning_rate", "0.05"}, {"momentum", "0.9"}, {"multi_precision", "True"}});
  loss::SoftmaxCrossEntropyLoss loss_fn;
  std::vector<float> losses;
  for (int step = 0; step < 5; ++step) {
    NDArray x = nd::random_uniform(0, 1, Shape{32, 1, 28, 28}).astype(DType::Float16).copyto(ctx);
    NDArray y = nd::random_randint(0, 10, Shape{32}).astype(DType::Float16).copyto(ctx);
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
TEST(Float16Gpu, Float16LenetTrainsOnTheGpuAsOnTheCpu) {
  REQUIRE_GPU();
  const std::vector<float> on_cpu = float16_lenet_losses(cpu(), false);
  for (bool hybridize : {false, true}) {
    const std::vector<float> on_gpu = float16_lenet_losses(gpu(0), hybridize);
    ASSERT_EQ(on_gpu.size(), on_cpu.size());
    for (size_t i = 0; i < on_cpu.size(); ++i)
      EXPECT_NEAR(on_gpu[i], on_cpu[i], 1e-2 * std::abs(on_cpu[i]))
          << (hybridize ? "hybridized" : "imperative") << " step " << i;
  }
}

}  // namespace
}  // namespace braid::gluon
