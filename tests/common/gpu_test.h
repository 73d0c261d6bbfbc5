#pragma once
// For tests of GPU code: they skip, saying why, where no GPU can be used (no CUDA in the build,
// no driver, no device), and the ones about the no-GPU behaviour skip where there is one.
#include <gtest/gtest.h>

#include "braid/device/gpu.h"

#define REQUIRE_GPU() \
  if (::braid::num_gpus() == 0) GTEST_SKIP() << "needs a GPU: " << ::braid::gpu_runtime::unavailable_reason()

#define REQUIRE_NO_GPU()       \
  if (::braid::num_gpus() > 0) \
  GTEST_SKIP() << "checks the behaviour without a GPU; this machine has " << ::braid::num_gpus()
