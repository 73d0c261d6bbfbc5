// The GPU runtime (include/braid/device/gpu.h) and how arrays use it. Tests that need a GPU skip,
// saying why, where none can be used (no CUDA in the build, no driver, no device); the others
// check what a machine without a GPU must do: clear errors, and cpu_pinned working everywhere.
#include <gtest/gtest.h>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/device/gpu.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/reduce.h"
#include "braid/storage/storage.h"
#include "common/error_message.h"
#include "common/gpu_test.h"

using namespace braid;

namespace {

TEST(GpuRuntime, TheReasonIsEmptyExactlyWhenThereIsAGpu) {
  EXPECT_EQ(gpu_runtime::unavailable_reason().empty(), num_gpus() > 0) << gpu_runtime::unavailable_reason();
  if (!gpu_runtime::built_with_cuda()) {
    EXPECT_NE(gpu_runtime::unavailable_reason().find("BRAID_WITH_CUDA"), std::string::npos);
  }
}

TEST(GpuRuntime, WithoutAGpuArraysOnGpuFailWithTheReason) {
  REQUIRE_NO_GPU();
  const std::string err = braid::test::error_message([] { nd::zeros(Shape({2, 3}), gpu(0)).wait_to_read(); });
  EXPECT_NE(err.find("gpu(0)"), std::string::npos) << err;
  EXPECT_NE(err.find(gpu_runtime::unavailable_reason()), std::string::npos) << err;
  const std::string copy_err = braid::test::error_message([] { nd::ones(Shape({4})).copyto(gpu(1)).wait_to_read(); });
  EXPECT_NE(copy_err.find("gpu(1)"), std::string::npos) << copy_err;
}

TEST(GpuRuntime, MemoryInfoCountsAnAllocation) {
  if (num_gpus() == 0) {
    const std::string err = braid::test::error_message([] { gpu_runtime::memory_info(0); });
    EXPECT_NE(err.find(gpu_runtime::unavailable_reason()), std::string::npos) << err;
    return;
  }
  const auto before = gpu_runtime::memory_info(0);
  EXPECT_GT(before.total, 0u);
  EXPECT_LE(before.free, before.total);
  const size_t bytes = size_t{256} << 20;
  void* block = gpu_runtime::device_malloc(bytes, 0);
  const auto after = gpu_runtime::memory_info(0);
  gpu_runtime::device_free(block, 0);
  EXPECT_EQ(after.total, before.total);
  EXPECT_GE(before.free - after.free, bytes);
  EXPECT_NE(braid::test::error_message([] { gpu_runtime::memory_info(num_gpus()); }).find("gpu("), std::string::npos);
}

TEST(GpuRuntime, PinnedHostMemoryWorksWithOrWithoutAGpu) {
  NDArray a = nd::arange(0, 6).reshape({2, 3}).copyto(cpu_pinned(0));
  NDArray b = a * 2.0 + 1.0;
  EXPECT_EQ(b.ctx(), cpu_pinned(0));
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{1, 3, 5, 7, 9, 11}));
}

TEST(GpuRuntime, CopiesRoundTripThroughTheGpu) {
  REQUIRE_GPU();
  NDArray host = nd::arange(0, 1000).reshape({10, 100});
  NDArray on_gpu = host.copyto(gpu(0));
  EXPECT_EQ(on_gpu.ctx(), gpu(0));
  NDArray back = on_gpu.copyto(cpu());
  EXPECT_EQ(back.to_vector<float>(), host.to_vector<float>());
  NDArray pinned = on_gpu.copyto(cpu_pinned(0));
  EXPECT_EQ(pinned.to_vector<float>(), host.to_vector<float>());
}

TEST(GpuRuntime, CopiesConvertDtypes) {
  REQUIRE_GPU();
  NDArray host = nd::array({0.5f, -1.25f, 3.0f});
  NDArray half_on_gpu(Shape({3}), gpu(0), DType::Float16);
  host.copyto(half_on_gpu);
  NDArray back(Shape({3}), cpu(), DType::Float64);
  half_on_gpu.copyto(back);
  EXPECT_EQ(back.to_vector<double>(), (std::vector<double>{0.5, -1.25, 3.0}));
  NDArray wide(Shape({3}), gpu(0), DType::Float32);
  half_on_gpu.copyto(wide);  // on one GPU
  EXPECT_EQ(wide.to_vector<float>(), host.to_vector<float>());
}

// d/dx of sum(2 · (x on the GPU, back on the CPU)) = 2: the copies' gradients cross back.
TEST(GpuRuntime, AutogradRecordsCopiesBetweenDevices) {
  REQUIRE_GPU();
  NDArray x = nd::array({1.0f, -2.0f, 3.0f});
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope record;
    y = nd::sum((x.copyto(gpu(0)) * 2.0).copyto(cpu()));
  }
  y.backward();
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>{4.0f});
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{2.0f, 2.0f, 2.0f}));
}

TEST(GpuRuntime, OperatorsWithoutAGpuKernelSayWhichOne) {
  REQUIRE_GPU();
  NDArray x = nd::ones(Shape({2, 2, 3})).copyto(gpu(0));
  const std::string err =
      braid::test::error_message([&] { nd::invoke1("_image_flip_left_right", {x}).wait_to_read(); });
  EXPECT_NE(err.find("operator _image_flip_left_right has no GPU kernel"), std::string::npos) << err;
}

TEST(GpuRuntime, DeviceMemoryIsPooled) {
  REQUIRE_GPU();
  { NDArray a(Shape({1 << 20}), gpu(0)); }
  NDArray b(Shape({1 << 20}), gpu(0));
  b.wait_to_write();
  EXPECT_GE(Storage::get().stats(gpu(0)).pool_hits, 1u);
}

}  // namespace
