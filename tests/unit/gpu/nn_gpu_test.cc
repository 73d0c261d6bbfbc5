// The CUDA kernels of the layer operators (src/op/nn/*.cu) against their CPU kernels on a GPU:
// forward, hidden outputs, aux states and every gradient, float32 and float64, with the
// attribute combinations models use. Where the build has CUDA, the kernels must be registered
// (checked everywhere).
#include <gtest/gtest.h>

#include "braid/device/gpu.h"
#include "common/gpu_case.h"
#include "common/gpu_test.h"

using namespace braid;
using braid::test::expect_gpu_matches_cpu_both;
using braid::test::GpuCase;

namespace {

TEST(NnGpu, CudaBuildsRegisterTheLayerKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "a build without CUDA has no GPU kernels";
  for (const char* name : {"FullyConnected", "dot", "batch_dot", "Convolution", "Deconvolution", "Pooling",
                           "Activation", "softmax", "log_softmax", "softmin", "SoftmaxActivation", "SoftmaxOutput",
                           "BatchNorm", "LeakyReLU", "Dropout", "LayerNorm", "Embedding"}) {
    const op::OpDef& def = op::Registry::get().find(name);
    EXPECT_TRUE(def.gpu.forward) << name;
    EXPECT_TRUE(def.gpu.backward) << name;
  }
}

// Sums of up to a few hundred float32 products, in another order (and algorithm) than the CPU's.
constexpr double kFloat32SumTolerance = 1e-3;

GpuCase conv(op::AttrMap attrs, std::vector<Shape> inputs) {
  return {"Convolution", std::move(attrs), std::move(inputs)};
}

TEST(NnGpu, ConvolutionMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(21);
  const std::vector<GpuCase> cases = {
      // LeNet's two convolutions
      conv({{"kernel", "(5, 5)"}, {"num_filter", "20"}}, {Shape({4, 1, 28, 28}), Shape({20, 1, 5, 5}), Shape({20})}),
      conv({{"kernel", "(5, 5)"}, {"num_filter", "50"}}, {Shape({4, 20, 12, 12}), Shape({50, 20, 5, 5}), Shape({50})}),
      conv({{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
           {Shape({2, 3, 9, 8}), Shape({6, 3, 3, 3}), Shape({6})}),
      conv({{"kernel", "(3, 2)"}, {"num_filter", "4"}, {"dilate", "(2, 3)"}, {"pad", "(2, 1)"}, {"no_bias", "True"}},
           {Shape({2, 3, 10, 11}), Shape({4, 3, 3, 2})}),
      conv({{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"num_group", "2"}, {"pad", "(1, 1)"}},
           {Shape({2, 4, 7, 7}), Shape({6, 2, 3, 3}), Shape({6})}),
      conv({{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"num_group", "4"}},  // depthwise
           {Shape({2, 4, 6, 6}), Shape({4, 1, 3, 3}), Shape({4})}),
      conv({{"kernel", "(3,)"}, {"num_filter", "5"}, {"stride", "(2,)"}, {"pad", "(1,)"}},  // 1-D
           {Shape({3, 2, 15}), Shape({5, 2, 3}), Shape({5})}),
      conv({{"kernel", "(1, 1)"}, {"num_filter", "8"}}, {Shape({2, 3, 5, 5}), Shape({8, 3, 1, 1}), Shape({8})}),
  };
  for (const GpuCase& c : cases) expect_gpu_matches_cpu_both(c, kFloat32SumTolerance);
}

TEST(NnGpu, DeconvolutionMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(22);
  auto deconv = [](op::AttrMap attrs, std::vector<Shape> inputs) {
    return GpuCase{"Deconvolution", std::move(attrs), std::move(inputs)};
  };
  const std::vector<GpuCase> cases = {
      deconv({{"kernel", "(4, 4)"}, {"num_filter", "3"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
             {Shape({2, 5, 6, 6}), Shape({5, 3, 4, 4})}),
      deconv({{"kernel", "(3, 3)"},
              {"num_filter", "4"},
              {"stride", "(2, 2)"},
              {"pad", "(1, 1)"},
              {"adj", "(1, 1)"},
              {"no_bias", "False"}},
             {Shape({2, 3, 5, 4}), Shape({3, 4, 3, 3}), Shape({4})}),
      deconv({{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"stride", "(2, 2)"}, {"target_shape", "(10, 9)"}},
             {Shape({1, 2, 5, 5}), Shape({2, 4, 3, 3})}),
      deconv({{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"num_group", "2"}, {"dilate", "(2, 2)"}},
             {Shape({2, 4, 5, 5}), Shape({4, 3, 3, 3})}),
      deconv({{"kernel", "(4,)"}, {"num_filter", "3"}, {"stride", "(3,)"}, {"no_bias", "False"}},  // 1-D
             {Shape({2, 2, 7}), Shape({2, 3, 4}), Shape({3})}),
  };
  for (const GpuCase& c : cases) expect_gpu_matches_cpu_both(c, kFloat32SumTolerance);
}

// 3-D convolutions (NCDHW) in float32 and float64; channels-last ones (NHWC, NDHWC; weights
// (F, taps..., C/g): cuDNN's NHWC filters) in float32.
TEST(NnGpu, ThreeDimensionalAndChannelsLastConvolutionsMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(24);
  expect_gpu_matches_cpu_both(
      conv({{"kernel", "(3, 3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1, 1)"}, {"stride", "(2, 1, 2)"}},
           {Shape({2, 3, 5, 6, 5}), Shape({4, 3, 3, 3, 3}), Shape({4})}),
      kFloat32SumTolerance);
  expect_gpu_matches_cpu_both(GpuCase{"Deconvolution",
                                      {{"kernel", "(2, 2, 2)"}, {"num_filter", "3"}, {"stride", "(2, 2, 2)"}},
                                      {Shape({2, 4, 3, 4, 3}), Shape({4, 3, 2, 2, 2})}},
                              kFloat32SumTolerance);
  const std::vector<GpuCase> channels_last = {
      conv({{"kernel", "(3, 3)"}, {"num_filter", "5"}, {"pad", "(1, 1)"}, {"layout", "NHWC"}},
           {Shape({2, 7, 6, 3}), Shape({5, 3, 3, 3}), Shape({5})}),
      conv({{"kernel", "(3, 3)"},
            {"num_filter", "4"},
            {"num_group", "2"},
            {"stride", "(2, 2)"},
            {"layout", "NHWC"},
            {"no_bias", "True"}},
           {Shape({2, 9, 8, 4}), Shape({4, 3, 3, 2})}),
      conv({{"kernel", "(2, 3, 2)"}, {"num_filter", "3"}, {"layout", "NDHWC"}},
           {Shape({2, 4, 5, 4, 2}), Shape({3, 2, 3, 2, 2}), Shape({3})}),
  };
  for (GpuCase c : channels_last) {
    c.tolerance = kFloat32SumTolerance;
    braid::test::expect_gpu_matches_cpu(c, DType::Float32);
  }
}

TEST(NnGpu, PoolingMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(23);
  auto pool = [](op::AttrMap attrs, Shape data) { return GpuCase{"Pooling", std::move(attrs), {std::move(data)}}; };
  std::vector<GpuCase> cases;
  for (const char* type : {"max", "avg", "sum"}) {
    auto with_type = [type](op::AttrMap a) {
      a["pool_type"] = type;
      return a;
    };
    cases.push_back(pool(with_type({{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}), Shape({4, 20, 24, 24})));  // LeNet
    cases.push_back(pool(with_type({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}}),
                         Shape({2, 3, 9, 10})));  // overlapping windows
    cases.push_back(pool(with_type({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pooling_convention", "full"}}),
                         Shape({2, 3, 8, 9})));
    cases.push_back(pool(with_type({{"kernel", "(3, 2)"},
                                    {"stride", "(2, 3)"},
                                    {"pad", "(1, 1)"},
                                    {"pooling_convention", "full"},
                                    {"count_include_pad", "False"}}),
                         Shape({2, 2, 7, 9})));
    cases.push_back(
        pool(with_type({{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"count_include_pad", "True"}}), Shape({1, 2, 5, 5})));
    cases.push_back(pool(with_type({{"global_pool", "True"}}), Shape({2, 3, 6, 7})));
    cases.push_back(pool(with_type({{"global_pool", "True"}, {"kernel", "(1,)"}}), Shape({2, 3, 9})));
    cases.push_back(pool(with_type({{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}}), Shape({2, 3, 11})));
    // 3-D, and channels last
    cases.push_back(pool(with_type({{"kernel", "(2, 3, 2)"}, {"stride", "(2, 2, 1)"}, {"pad", "(1, 1, 0)"}}),
                         Shape({2, 3, 5, 6, 4})));
    cases.push_back(pool(with_type({{"global_pool", "True"}, {"kernel", "(1, 1, 1)"}}), Shape({2, 3, 3, 4, 5})));
    cases.push_back(pool(with_type({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"layout", "NHWC"}}),
                         Shape({2, 9, 10, 3})));
    cases.push_back(pool(with_type({{"kernel", "(3,)"}, {"stride", "(2,)"}, {"layout", "NWC"}}), Shape({2, 11, 3})));
    cases.push_back(pool(with_type({{"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}, {"layout", "NDHWC"}}),
                         Shape({2, 4, 5, 4, 3})));
  }
  for (const GpuCase& c : cases) expect_gpu_matches_cpu_both(c, 1e-5);
}

TEST(NnGpu, ActivationMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(24);
  for (const char* act : {"relu", "sigmoid", "tanh", "softrelu", "softsign"}) {
    GpuCase c{"Activation", {{"act_type", act}}, {Shape({4, 50, 7})}};
    c.low = -30;  // both sides of softrelu's cut at 20, and saturated sigmoid and tanh
    c.high = 30;
    expect_gpu_matches_cpu_both(c, 1e-5);
  }
}

TEST(NnGpu, SoftmaxMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(25);
  const std::vector<GpuCase> cases = {
      {"softmax", {}, {Shape({16, 10})}},
      {"softmax", {{"axis", "1"}}, {Shape({3, 7, 4})}},  // a middle axis
      {"softmax", {{"axis", "0"}, {"temperature", "2.5"}}, {Shape({5, 6})}},
      {"softmax", {}, {Shape({3, 1000})}},  // rows longer than a block
      {"softmax", {{"dtype", "float64"}}, {Shape({4, 9})}},
      {"log_softmax", {}, {Shape({16, 10})}},
      {"log_softmax", {{"axis", "-2"}, {"temperature", "0.5"}}, {Shape({2, 9, 3})}},
      {"softmin", {{"axis", "1"}}, {Shape({4, 6, 2})}},
      {"SoftmaxActivation", {}, {Shape({4, 3, 5})}},
      {"SoftmaxActivation", {{"mode", "channel"}}, {Shape({2, 4, 3, 3})}},
  };
  for (GpuCase c : cases) {
    c.low = -5;
    c.high = 5;
    expect_gpu_matches_cpu_both(c, 1e-5);
  }
}

// SoftmaxOutput with class-index labels in [0, classes) (0 is the ignore_label where one is used).
GpuCase softmax_output(op::AttrMap attrs, Shape data, Shape label, int64_t classes) {
  GpuCase c{"SoftmaxOutput", std::move(attrs), {std::move(data), std::move(label)}};
  c.low = -3;
  c.high = 3;
  c.make_input = [classes](size_t i, const Shape& shape, DType dtype) {
    if (i != 1) return NDArray();
    return nd::invoke1("floor", {nd::random_uniform(0, static_cast<double>(classes), shape, cpu(), dtype)});
  };
  return c;
}

TEST(NnGpu, SoftmaxOutputMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(26);
  const std::vector<GpuCase> cases = {
      softmax_output({}, Shape({16, 10}), Shape({16}), 10),  // LeNet's loss
      softmax_output({{"normalization", "batch"}, {"grad_scale", "0.5"}}, Shape({8, 5}), Shape({8}), 5),
      softmax_output({{"use_ignore", "True"}, {"ignore_label", "0"}, {"normalization", "valid"}}, Shape({12, 4}),
                     Shape({12}), 4),
      softmax_output({{"smooth_alpha", "0.1"}}, Shape({6, 7}), Shape({6}), 7),
      softmax_output({{"out_grad", "True"}}, Shape({5, 3}), Shape({5}), 3),
      softmax_output({}, Shape({4, 3, 5}), Shape({4}), 15),  // flattened classes
      softmax_output({{"multi_output", "True"}}, Shape({4, 5, 3, 2}), Shape({4, 6}), 5),
      softmax_output({{"multi_output", "True"}, {"normalization", "batch"}}, Shape({3, 4, 5}), Shape({3, 5}), 4),
      softmax_output(
          {{"multi_output", "True"}, {"use_ignore", "True"}, {"ignore_label", "0"}, {"normalization", "valid"}},
          Shape({3, 4, 5}), Shape({3, 5}), 4),
      softmax_output({{"preserve_shape", "True"}}, Shape({3, 4, 6}), Shape({3, 4}), 6),
  };
  for (const GpuCase& c : cases) expect_gpu_matches_cpu_both(c, 1e-5);
  GpuCase probabilities{"SoftmaxOutput", {}, {Shape({6, 4}), Shape({6, 4})}};  // labels as probabilities
  probabilities.low = 0;
  expect_gpu_matches_cpu_both(probabilities, 1e-5);
}

// As in MXNet, a label naming no class gives its row no target: the gradient is the softmax.
TEST(NnGpu, SoftmaxOutputGivesLabelsOutsideTheClassesNoTarget) {
  REQUIRE_GPU();
  NDArray data = nd::zeros(Shape({2, 3})).copyto(gpu(0));
  NDArray label = nd::array({1, 3}, Shape({2})).copyto(gpu(0));
  std::vector<NDArray> out = nd::invoke_all("SoftmaxOutput", {data, label});
  NDArray grad = nd::zeros(Shape({2, 3})).copyto(gpu(0));
  nd::invoke_backward("SoftmaxOutput", {}, {out[0]}, {data, label}, out, {grad, NDArray()});
  const std::vector<double> got = grad.copyto(cpu()).to_vector<double>();
  const std::vector<double> want{1.0 / 3, -2.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

TEST(NnGpu, BatchNormMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(27);
  // data, gamma, beta, moving_mean, moving_var (positive: uniform in [low, high] = [0.1, 2])
  auto bn = [](op::AttrMap attrs, Shape data, int64_t channels, bool train) {
    GpuCase c{"BatchNorm",
              std::move(attrs),
              {data, Shape({channels}), Shape({channels}), Shape({channels}), Shape({channels})}};
    c.low = 0.1;
    c.high = 2;
    c.train = train;
    return c;
  };
  const std::vector<GpuCase> cases = {
      bn({}, Shape({8, 4, 5, 5}), 4, true),
      bn({{"fix_gamma", "False"}}, Shape({8, 4, 5, 5}), 4, true),
      bn({{"fix_gamma", "False"}, {"momentum", "0.7"}, {"eps", "1e-5"}}, Shape({6, 3, 7}), 3, true),
      bn({{"fix_gamma", "False"}, {"output_mean_var", "True"}}, Shape({5, 3, 4}), 3, true),
      bn({{"fix_gamma", "False"}, {"use_global_stats", "True"}}, Shape({4, 3, 5, 5}), 3, true),
      bn({{"fix_gamma", "False"}}, Shape({4, 3, 5, 5}), 3, false),  // inference
      bn({{"fix_gamma", "False"}, {"axis", "-1"}}, Shape({4, 5, 6}), 6, true),
      bn({{"fix_gamma", "False"}}, Shape({300, 2}), 2, true),  // channels longer than a block
  };
  for (const GpuCase& c : cases) expect_gpu_matches_cpu_both(c, 1e-4);
}

TEST(NnGpu, LeakyReLUMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(28);
  const Shape data({4, 3, 5, 6});
  const std::vector<GpuCase> cases = {
      {"LeakyReLU", {{"act_type", "leaky"}, {"slope", "0.1"}}, {data}},
      {"LeakyReLU", {{"act_type", "elu"}, {"slope", "0.5"}}, {data}},
      {"LeakyReLU", {{"act_type", "selu"}}, {data}},
      {"LeakyReLU", {{"act_type", "gelu"}}, {data}},
      {"LeakyReLU", {{"act_type", "prelu"}}, {data, Shape({3})}},  // one slope per channel
      {"LeakyReLU", {{"act_type", "prelu"}}, {data, Shape({1})}},
      {"LeakyReLU", {{"act_type", "prelu"}}, {data, data}},
  };
  for (GpuCase c : cases) {
    c.low = -3;
    c.high = 3;
    expect_gpu_matches_cpu_both(c, 1e-5);
  }
}

// Dropout's GPU decisions differ from the CPU's: check what they must satisfy.
TEST(NnGpu, DropoutKeepsTheRightFractionAndItsGradientUsesTheMask) {
  REQUIRE_GPU();
  nd::seed(29);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    SCOPED_TRACE(dtype_name(dtype));
    autograd::ModeScope train(true);
    const NDArray x = nd::ones(Shape({200, 500}), cpu(), dtype).copyto(gpu(0));
    const std::vector<NDArray> out = nd::invoke_all("Dropout", {x}, {{"p", "0.3"}});
    const std::vector<double> y = out[0].copyto(cpu()).to_vector<double>();
    const std::vector<double> mask = out[1].copyto(cpu()).to_vector<double>();
    size_t kept = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_EQ(y[i], mask[i]) << i;
      if (y[i] == 0) continue;
      ++kept;
      ASSERT_NEAR(y[i], 1 / 0.7, 1e-6) << i;
    }
    EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(y.size()), 0.7, 0.01);

    const NDArray head = nd::random_uniform(-1, 1, x.shape(), cpu(), dtype);
    const NDArray dx = nd::zeros(x.shape(), cpu(), dtype).copyto(gpu(0));
    nd::invoke_backward("Dropout", {{"p", "0.3"}}, {head.copyto(gpu(0))}, {x}, out, {dx});
    const std::vector<double> h = head.to_vector<double>(), d = dx.copyto(cpu()).to_vector<double>();
    for (size_t i = 0; i < d.size(); ++i) ASSERT_NEAR(d[i], h[i] * mask[i], 1e-6 * (1 + std::abs(d[i]))) << i;

    const std::vector<double> again =
        nd::invoke_all("Dropout", {x}, {{"p", "0.3"}})[1].copyto(cpu()).to_vector<double>();
    EXPECT_NE(again, mask) << "each call draws new decisions";
  }
}

TEST(NnGpu, DropoutSharesDecisionsAlongAxesAndIsTheIdentityInPrediction) {
  REQUIRE_GPU();
  nd::seed(30);
  const NDArray x = nd::random_uniform(1, 2, Shape({20, 30, 40})).copyto(gpu(0));
  {
    autograd::ModeScope train(true);
    const std::vector<double> mask =
        nd::invoke_all("Dropout", {x}, {{"p", "0.5"}, {"axes", "(1,)"}})[1].copyto(cpu()).to_vector<double>();
    size_t kept = 0;
    for (int64_t a = 0; a < 20; ++a)
      for (int64_t c = 0; c < 40; ++c) {
        const double first = mask[static_cast<size_t>(a * 30 * 40 + c)];
        kept += first != 0;
        for (int64_t b = 1; b < 30; ++b) ASSERT_EQ(mask[static_cast<size_t>((a * 30 + b) * 40 + c)], first);
      }
    EXPECT_GT(kept, 300u);  // of 800 decisions, about 400 kept
    EXPECT_LT(kept, 500u);
  }
  autograd::ModeScope predict(false);
  const std::vector<NDArray> out = nd::invoke_all("Dropout", {x}, {{"p", "0.5"}});
  EXPECT_EQ(out[0].copyto(cpu()).to_vector<float>(), x.copyto(cpu()).to_vector<float>());
  for (float m : out[1].copyto(cpu()).to_vector<float>()) ASSERT_EQ(m, 1.0f);
}

TEST(NnGpu, LayerNormMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(31);
  const std::vector<GpuCase> cases = {
      {"LayerNorm", {}, {Shape({4, 6, 10}), Shape({10}), Shape({10})}},
      {"LayerNorm", {{"axis", "1"}, {"eps", "1e-3"}}, {Shape({3, 5, 4}), Shape({5}), Shape({5})}},
      {"LayerNorm", {{"output_mean_var", "True"}}, {Shape({6, 8}), Shape({8}), Shape({8})}},
      {"LayerNorm", {}, {Shape({2, 700}), Shape({700}), Shape({700})}},  // rows longer than a block
  };
  for (GpuCase c : cases) {
    c.low = -2;
    c.high = 2;
    expect_gpu_matches_cpu_both(c, 1e-4);
  }
}

TEST(NnGpu, EmbeddingMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(32);
  GpuCase c{"Embedding", {{"input_dim", "10"}, {"output_dim", "7"}}, {Shape({4, 5}), Shape({10, 7})}};
  c.make_input = [](size_t i, const Shape& shape, DType dtype) {
    if (i != 0) return NDArray();
    // Repeated indices (summed in the weight's gradient) and some outside [0, 10) (clipped).
    return nd::invoke1("floor", {nd::random_uniform(-2, 12, shape, cpu(), dtype)});
  };
  expect_gpu_matches_cpu_both(c, 1e-5);
}

TEST(NnGpu, LrnL2NormalizationAndUpSamplingMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(25);
  expect_gpu_matches_cpu_both(GpuCase{"LRN", {{"nsize", "3"}, {"alpha", "0.01"}}, {Shape({2, 5, 4, 3})}}, 1e-5);
  for (const char* mode : {"instance", "channel", "spatial"})
    expect_gpu_matches_cpu_both(GpuCase{"L2Normalization", {{"mode", mode}}, {Shape({2, 3, 4, 5})}}, 1e-5);
  expect_gpu_matches_cpu_both(
      GpuCase{"UpSampling", {{"scale", "2"}, {"sample_type", "nearest"}}, {Shape({2, 3, 4, 5})}}, 1e-6);
  expect_gpu_matches_cpu_both(GpuCase{"UpSampling",
                                      {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}},
                                      {Shape({2, 3, 4, 4}), Shape({2, 2, 2, 2})}},
                              1e-6);
  expect_gpu_matches_cpu_both(
      GpuCase{"UpSampling",
              {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}, {"multi_input_mode", "sum"}},
              {Shape({2, 3, 4, 4}), Shape({2, 3, 8, 8})}},
      1e-6);
}

}  // namespace
