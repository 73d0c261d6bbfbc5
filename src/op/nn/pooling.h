#pragma once
// Internal: Pooling's attributes and the kernel geometry they give for an input, shared by its
// CPU (pooling.cc) and GPU (pooling.cu) kernels.
#include "braid/base/shape.h"
#include "pool_kernels.h"

namespace braid::op::detail {

struct PoolParam {
  Shape kernel, stride, pad;
  PoolType type = PoolType::Max;
  bool global = false, full = false, include_pad = true;
  // pooling_convention='same': ceil(in / stride) windows from the first element, the last ones
  // clipped at the end of the input (no pad).
  bool same = false;
  bool channels_last = false;  // layout NWC / NHWC / NDHWC
  int p_value = 2;             // pool_type='lp': 1, 2 or 3
  // Set by the executor's relu fusion (OpDef::fuse_input_relu_grad), never by an attribute: the
  // input is a relu's output and the backward also takes the relu's gradient.
  bool relu_grad = false;

  int spatial_axis(int i) const { return channels_last ? 1 + i : 2 + i; }
  int channel_axis(int ndim) const { return channels_last ? ndim - 1 : 1; }
};

/// The geometry of pooling `data` (shape inference has checked it).
PoolGeom pool_geom(const PoolParam& p, const Shape& data);

}  // namespace braid::op::detail
