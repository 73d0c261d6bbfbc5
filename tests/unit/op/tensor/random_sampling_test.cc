// The CPU sampling kernels (src/op/tensor/random.cc, random_samplers.cc): each distribution's
// moments (common/sampling_moments.h, as on the GPU), a seed repeating the samples, the samples
// independent of the number of OpenMP threads, and the edges of uniform and randint.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "braid/base/convert.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/op/registry.h"
#include "common/sampling_moments.h"

namespace braid::test {
namespace {

TEST(RandomCpu, UniformNormalAndRandintHaveTheirMoments) { expect_basic_sampler_moments(cpu()); }

TEST(RandomCpu, ScalarParameterSamplersHaveTheirMoments) { expect_scalar_sampler_moments(cpu()); }

TEST(RandomCpu, ASeedRepeatsTheSamplesAndCallsDiffer) {
  for (const char* op : {"_random_uniform", "_random_normal", "_random_gamma", "_random_poisson"}) {
    nd::seed(52);
    const std::vector<double> first = sample(op, {}, DType::Float32, cpu()).to_vector<double>();
    const std::vector<double> second = sample(op, {}, DType::Float32, cpu()).to_vector<double>();
    nd::seed(52);
    const std::vector<double> again = sample(op, {}, DType::Float32, cpu()).to_vector<double>();
    EXPECT_EQ(first, again) << op;
    EXPECT_NE(first, second) << op;
  }
}

// The op's CPU kernel run directly on `threads` OpenMP threads, its generator seeded with 7.
std::vector<double> run_with_threads(const std::string& op, const op::AttrMap& attrs, const Shape& shape, DType dtype,
                                     int threads) {
  const op::OpDef& def = op::Registry::get().find(op);
  const std::any param = def.parse(attrs);
  std::vector<double> out(static_cast<size_t>(shape.size()));
  std::vector<char> bytes(static_cast<size_t>(shape.size()) * dtype_size(dtype));
  std::mt19937_64 rng(7);
  op::ForwardArgs args;
  args.outputs.push_back(op::TBlob{bytes.data(), shape, dtype});
  args.req.assign(1, op::OpReq::Write);
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  def.cpu.forward(op::OpContext{false, cpu(), &rng}, param, args);
  omp_set_num_threads(before);
  convert_elements(bytes.data(), dtype, out.data(), DType::Float64, shape.size());
  return out;
}

// Element i is a function of the seed and i alone: one thread and three give the same samples.
TEST(RandomCpu, TheNumberOfThreadsDoesNotChangeTheSamples) {
  const Shape shape({1 << 19});
  struct Case {
    const char* op;
    op::AttrMap attrs;
    DType dtype;
  };
  const Case cases[] = {
      {"_random_uniform", {{"low", "-2"}, {"high", "5"}}, DType::Float32},
      {"_random_normal", {{"loc", "1"}, {"scale", "3"}}, DType::Float64},
      {"_random_normal", {}, DType::Float16},
      {"_random_randint", {{"low", "-9"}, {"high", "1000"}}, DType::Int64},
      {"_random_gamma", {{"alpha", "0.7"}, {"beta", "2"}}, DType::Float32},
      {"_random_poisson", {{"lam", "25"}}, DType::Int32},
      {"_random_negative_binomial", {{"k", "2"}, {"p", "0.3"}}, DType::Float32},
  };
  for (const Case& c : cases) {
    op::AttrMap attrs = c.attrs;
    attrs["shape"] = shape.str();
    attrs["dtype"] = dtype_name(c.dtype);
    const std::vector<double> one = run_with_threads(c.op, attrs, shape, c.dtype, 1);
    EXPECT_EQ(one, run_with_threads(c.op, attrs, shape, c.dtype, 3)) << c.op;
    EXPECT_NE(one.front(), one.back()) << c.op;  // filled, not constant
  }
}

// [low, high) holds one float32 value when high is low's successor: rounding up to high would
// leave the interval, so every sample is low.
TEST(RandomCpu, UniformNeverReturnsHigh) {
  const NDArray x =
      nd::invoke1("_random_uniform", {},
                  {{"low", "1"}, {"high", "1.00000011920928955078125"}, {"shape", "(100000,)"}});  // 1 + 2^-23
  for (float v : x.to_vector<float>()) ASSERT_EQ(v, 1.0f);
}

// A range near int64's: no overflow, both halves reached.
TEST(RandomCpu, RandintCoversAWideInt64Range) {
  const double bound = 4611686018427387904.0;  // 2^62
  const NDArray x = nd::invoke1(
      "_random_randint", {},
      {{"low", "-4611686018427387904"}, {"high", "4611686018427387904"}, {"shape", "(100000,)"}, {"dtype", "int64"}});
  const Moments m = moments(x);
  EXPECT_GE(m.min, -bound);
  EXPECT_LT(m.max, bound);
  EXPECT_LT(m.min, -0.9 * bound);
  EXPECT_GT(m.max, 0.9 * bound);
  EXPECT_NEAR(m.mean, 0.0, 5 * bound / std::sqrt(3.0 * 1e5));
}

// _sample_poisson: each parameter element's block of draws has that element's mean.
TEST(RandomCpu, ArrayParameterSamplersDrawEachBlockFromItsParameters) {
  nd::seed(54);
  const NDArray lam = nd::array(std::vector<float>{0.5f, 4.0f, 60.0f}, Shape({3}));
  const NDArray x = nd::invoke1("_sample_poisson", {lam}, {{"shape", "(200000,)"}});
  ASSERT_EQ(x.shape(), Shape({3, 200000}));
  const std::vector<double> v = x.to_vector<double>();
  for (int row = 0; row < 3; ++row) {
    const double want = row == 0 ? 0.5 : row == 1 ? 4.0 : 60.0;
    double mean = 0;
    for (int i = 0; i < 200000; ++i) mean += v[static_cast<size_t>(row * 200000 + i)];
    mean /= 200000;
    EXPECT_NEAR(mean, want, 5 * std::sqrt(want / 200000)) << row;
  }
}

}  // namespace
}  // namespace braid::test
