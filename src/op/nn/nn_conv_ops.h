#pragma once
// Internal: the parts of the nn_conv operator family, registered by register_nn_conv_ops.
#include "braid/op/registry.h"

namespace braid::op::detail {

void add_fully_connected(Registry& r);  // fully_connected.cc
void add_convolution_ops(Registry& r);  // convolution.cc: Convolution, Deconvolution
void add_pooling(Registry& r);          // pooling.cc

}  // namespace braid::op::detail
