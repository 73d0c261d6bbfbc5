// The cuBLAS kernels (FullyConnected, dot, batch_dot) against their CPU kernels on a GPU:
// forward and every gradient, float32 and float64, with the attributes models use.
#include <gtest/gtest.h>

#include "common/gpu_case.h"
#include "common/gpu_test.h"

using namespace braid;
using braid::test::expect_gpu_matches_cpu_both;
using braid::test::GpuCase;

namespace {

// float32 sums of a few hundred products: CPU and GPU add in different orders.
constexpr double kFloat32Tolerance = 1e-4;

TEST(GemmGpu, FullyConnectedMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(11);
  const std::vector<GpuCase> cases = {
      // LeNet's layers: 800 -> 128 -> 10, from a flattened (50, 4, 4) feature map
      {"FullyConnected", {{"num_hidden", "128"}}, {Shape({16, 50, 4, 4}), Shape({128, 800}), Shape({128})}},
      {"FullyConnected", {{"num_hidden", "10"}}, {Shape({16, 128}), Shape({10, 128}), Shape({10})}},
      {"FullyConnected", {{"num_hidden", "7"}, {"no_bias", "True"}}, {Shape({5, 3, 2}), Shape({7, 6})}},
      {"FullyConnected", {{"num_hidden", "7"}, {"flatten", "False"}}, {Shape({2, 3, 6}), Shape({7, 6}), Shape({7})}},
      {"FullyConnected",
       {{"num_hidden", "4"}, {"flatten", "False"}, {"no_bias", "True"}},
       {Shape({3, 5}), Shape({4, 5})}},
      {"FullyConnected", {{"num_hidden", "3"}}, {Shape({1, 9}), Shape({3, 9}), Shape({3})}},
  };
  for (const GpuCase& c : cases) expect_gpu_matches_cpu_both(c, kFloat32Tolerance);
}

TEST(GemmGpu, DotMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(12);
  auto flags = [](bool ta, bool tb) {
    return op::AttrMap{{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}};
  };
  std::vector<GpuCase> cases = {
      {"dot", flags(false, false), {Shape({6, 5}), Shape({5, 4})}},
      {"dot", flags(true, false), {Shape({5, 6}), Shape({5, 4})}},
      {"dot", flags(false, true), {Shape({6, 5}), Shape({4, 5})}},
      {"dot", flags(true, true), {Shape({5, 6}), Shape({4, 5})}},
      {"dot", {}, {Shape({7}), Shape({7})}},              // two vectors: (1,)
      {"dot", {}, {Shape({2, 3, 4}), Shape({4, 2, 5})}},  // N-D: (2, 3) x (2, 5)
      {"dot", flags(true, false), {Shape({4, 2, 3}), Shape({4, 5})}},
      {"dot", flags(false, true), {Shape({3, 4}), Shape({2, 5, 4})}},
      {"dot", {}, {Shape({6}), Shape({6, 3})}},  // vector x matrix
      {"dot", {}, {Shape({3, 6}), Shape({6})}},  // matrix x vector
      {"batch_dot", flags(false, false), {Shape({3, 4, 5}), Shape({3, 5, 2})}},
      {"batch_dot", flags(true, false), {Shape({3, 5, 4}), Shape({3, 5, 2})}},
      {"batch_dot", flags(false, true), {Shape({3, 4, 5}), Shape({3, 2, 5})}},
      {"batch_dot", flags(true, true), {Shape({3, 5, 4}), Shape({3, 2, 5})}},
      {"batch_dot", {}, {Shape({2, 3, 4, 5}), Shape({2, 3, 5, 6})}},  // two batch axes
  };
  for (const GpuCase& c : cases) expect_gpu_matches_cpu_both(c, kFloat32Tolerance);
}

}  // namespace
