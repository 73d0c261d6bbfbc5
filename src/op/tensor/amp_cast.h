#pragma once
// Internal: MXNet's AMP casts (amp_cast.cc). amp_multicast runs the single-array conversion
// kernels of _copyto on each of its input/output pairs; pairwise() builds those kernels for a
// device from the device's _copyto kernels.
#include "braid/op/op_def.h"

namespace braid::op::detail {

Kernels pairwise(const Kernels& single);

}  // namespace braid::op::detail
