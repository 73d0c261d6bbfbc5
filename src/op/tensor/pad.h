#pragma once
// Internal: pad (pad.cc, pad.cu): its parameter and where each output element comes from, shared
// by the CPU and GPU kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "braid/op/registry.h"
#include "op/math/host_device.h"

namespace braid::op::detail {

enum class PadMode { Constant, Edge, Reflect };

struct PadParam {
  PadMode mode = PadMode::Constant;
  std::vector<int64_t> pad_width;
  double constant_value = 0;
};

/// The index along an axis of n input elements, padded by `before` in front, that output index o
/// copies; -1 where it is the constant.
BRAID_HOST_DEVICE int64_t pad_source(int64_t o, int64_t n, int64_t before, PadMode mode) {
  const int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == PadMode::Edge) return i < 0 ? 0 : n - 1;
  if (mode == PadMode::Reflect) return i < 0 ? -i : 2 * (n - 1) - i;
  return -1;
}

void register_pad_ops(Registry& r);

}  // namespace braid::op::detail
