#pragma once
// Internal: UpSampling's parameter, shared by its CPU (upsampling.cc) and GPU (upsampling.cu)
// kernels.
#include <any>
#include <cstdint>

#include "braid/op/op_def.h"

namespace braid::op::detail {

struct UpSamplingParam {
  int64_t scale = 1, num_filter = 0, num_args = 1;
  bool bilinear = false, sum = false;
  const OpDef* deconv = nullptr;  // bilinear: the Deconvolution that computes it, and its param
  std::any deconv_param;
};

}  // namespace braid::op::detail
