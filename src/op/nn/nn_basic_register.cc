// Registers the nn_basic family; each file of the family adds its own operators.
#include <cstring>

#include "nn_basic.h"

namespace braid::op::detail {

void zero_grad(const TBlob& g, OpReq req) {
  if (req == OpReq::Write) std::memset(g.dptr, 0, static_cast<size_t>(g.size()) * dtype_size(g.dtype));
}

void register_nn_basic_ops(Registry& r) {
  register_nn_basic_activation_ops(r);
  register_nn_basic_leaky_relu_ops(r);
  register_nn_basic_batch_norm_ops(r);
  register_nn_basic_layer_norm_ops(r);
  register_nn_basic_dropout_ops(r);
  register_nn_basic_softmax_ops(r);
  register_nn_basic_softmax_output_ops(r);
  register_nn_basic_regression_ops(r);
  register_nn_basic_embedding_ops(r);
  register_nn_basic_flatten_ops(r);
}

}  // namespace braid::op::detail
