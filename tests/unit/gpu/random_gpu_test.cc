// The CUDA sampling kernels (src/op/tensor/random.cu): the samples' range and moments
// (common/sampling_moments.h, as on the CPU), float32, float64 and integers; a seed makes them
// reproducible, and calls differ.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"
#include "common/sampling_moments.h"

using namespace braid;

namespace {

TEST(RandomGpu, CudaBuildsRegisterTheSamplingKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  for (const char* name : {"_random_uniform", "_random_normal", "_random_randint", "_random_gamma",
                           "_random_exponential", "_random_poisson", "_random_poisson_like",
                           "_random_negative_binomial", "_random_generalized_negative_binomial"})
    EXPECT_TRUE(test::has_gpu_kernels(name, false)) << name;
}

TEST(RandomGpu, UniformNormalAndRandintHaveTheirMoments) {
  REQUIRE_GPU();
  test::expect_basic_sampler_moments(gpu(0));
}

TEST(RandomGpu, ASeedRepeatsTheSamplesAndCallsDiffer) {
  REQUIRE_GPU();
  nd::seed(52);
  const std::vector<float> first =
      test::sample("_random_uniform", {}, DType::Float32, gpu(0)).copyto(cpu()).to_vector<float>();
  const std::vector<float> second =
      test::sample("_random_uniform", {}, DType::Float32, gpu(0)).copyto(cpu()).to_vector<float>();
  nd::seed(52);
  const std::vector<float> again =
      test::sample("_random_uniform", {}, DType::Float32, gpu(0)).copyto(cpu()).to_vector<float>();
  EXPECT_EQ(first, again);
  EXPECT_NE(first, second);
}

TEST(RandomGpu, ScalarParameterSamplersHaveTheirMoments) {
  REQUIRE_GPU();
  test::expect_scalar_sampler_moments(gpu(0));
}

}  // namespace
