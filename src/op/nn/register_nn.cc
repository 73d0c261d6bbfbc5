// Registers the layer operators of src/op/nn other than convolution and pooling (activations,
// normalization, softmax, dropout, output layers, CTCLoss, Embedding, Flatten, LRN), one file each.
#include <cstring>

#include "nn_util.h"

namespace braid::op::detail {

void zero_grad(const TBlob& g, OpReq req) {
  if (req == OpReq::Write) std::memset(g.dptr, 0, static_cast<size_t>(g.size()) * dtype_size(g.dtype));
}

void register_nn_ops(Registry& r) {
  register_activation_ops(r);
  register_leaky_relu_ops(r);
  register_batch_norm_ops(r);
  register_layer_norm_ops(r);
  register_dropout_ops(r);
  register_softmax_ops(r);
  register_softmax_output_ops(r);
  register_regression_ops(r);
  register_embedding_ops(r);
  register_flatten_ops(r);
  register_ctc_loss_ops(r);
  register_lrn_ops(r);
  register_sequence_ops(r);
  register_svm_output_ops(r);
  register_rnn_ops(r);
  register_group_norm_ops(r);
  register_l2_normalization_ops(r);
  register_upsampling_ops(r);
  register_spatial_sampling_ops(r);
  register_correlation_ops(r);
  register_im2col_ops(r);
}

}  // namespace braid::op::detail
