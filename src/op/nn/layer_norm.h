#pragma once
// Internal: LayerNorm's attributes, shared by its CPU (layer_norm.cc) and GPU (layer_norm.cu)
// kernels.

namespace braid::op::detail {

struct LayerNormParam {
  int axis = -1;
  double eps = 1e-5;
  bool output_mean_var = false;
};

}  // namespace braid::op::detail
