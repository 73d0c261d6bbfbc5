#pragma once
// Internal: BatchNorm's attributes and the inverse standard deviation it normalizes with, shared
// by its CPU (batch_norm.cc) and GPU (batch_norm.cu) kernels, and its fused form with relu.
#include <cmath>

#include "braid/op/registry.h"
#include "op/math/host_device.h"

namespace braid::op::detail {

struct BatchNormParam {
  double eps = 1e-3, momentum = 0.9;
  bool fix_gamma = true, use_global_stats = false, output_mean_var = false;
  int axis = 1;
};

/// Registers _contrib_BatchNormWithReLU (batch_norm_relu.cc) beside `batch_norm`'s definition.
void add_batch_norm_relu(Registry& r, const OpDef& batch_norm);

BRAID_HOST_DEVICE double to_invstd(double var, double eps) { return var + eps == 0 ? 0.0 : 1.0 / std::sqrt(var + eps); }

}  // namespace braid::op::detail
