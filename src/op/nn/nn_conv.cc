// The nn_conv family: FullyConnected, Convolution, Deconvolution, Pooling.
#include "nn_conv_ops.h"
#include "op/register_all.h"

namespace braid::op::detail {

void register_nn_conv_ops(Registry& r) {
  add_fully_connected(r);
  add_convolution_ops(r);
  add_pooling(r);
  // MXNet's first versions compute the same with a subset of the attributes.
  r.add_alias("Convolution_v1", "Convolution");
  r.add_alias("Pooling_v1", "Pooling");
}

}  // namespace braid::op::detail
