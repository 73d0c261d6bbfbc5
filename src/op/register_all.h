#pragma once
// Internal: one registration function per operator family, each in its own folder/file.
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_all_ops(Registry& r);

void register_init_ops(Registry& r);                     // src/op/tensor/init.cc
void register_elemwise_unary_ops(Registry& r);           // src/op/tensor/elemwise_unary.cc
void register_elemwise_binary_ops(Registry& r);          // src/op/tensor/elemwise_binary.cc
void register_elemwise_scalar_ops(Registry& r);          // src/op/tensor/elemwise_scalar.cc
void register_broadcast_ops(Registry& r);                // src/op/tensor/broadcast_ops.cc
void register_reduce_ops(Registry& r);                   // src/op/tensor/reduce.cc
void register_matrix_ops(Registry& r);                   // src/op/tensor/matrix.cc (dot, batch_dot, transpose...)
void register_indexing_ops(Registry& r);                 // src/op/tensor/indexing.cc
void register_ordering_ops(Registry& r);                 // src/op/tensor/ordering.cc
void register_random_ops(Registry& r);                   // src/op/tensor/random.cc
void register_nn_conv_ops(Registry& r);                  // src/op/nn/nn_conv.cc
void register_nn_ops(Registry& r);                       // src/op/nn/register_nn.cc
void register_optimizer_ops(Registry& r);                // src/op/optimizer/optimizer_ops.cc
void register_multi_update_ops(Registry& r);             // src/op/optimizer/multi_update_op.cc
void register_amp_cast_ops(Registry& r);                 // src/op/tensor/amp_cast.cc (after register_init_ops)
void register_all_finite_ops(Registry& r);               // src/op/tensor/all_finite.cc
void register_image_ops(Registry& r);                    // src/op/image/image_tensor.cc (+ image_geometry.cc)
void register_zero_grad_ops(Registry& r);                // src/op/tensor/zero_grad.cc (BlockGrad, zeros_like)
void register_batch_take_ops(Registry& r);               // src/op/tensor/batch_take.cc
void register_reset_arrays_ops(Registry& r);             // src/op/tensor/reset_arrays.cc
void register_contrib_math_ops(Registry& r);             // src/op/contrib/contrib_math.cc
void register_moments_ops(Registry& r);                  // src/op/tensor/moments.cc
void register_diag_ops(Registry& r);                     // src/op/tensor/diag.cc
void register_gather_scatter_nd_ops(Registry& r);        // src/op/tensor/gather_scatter_nd.cc
void register_ravel_ops(Registry& r);                    // src/op/tensor/ravel.cc
void register_index_copy_ops(Registry& r);               // src/op/contrib/index_copy.cc
void register_arange_like_ops(Registry& r);              // src/op/contrib/arange_like.cc
void register_roi_ops(Registry& r);                      // src/op/contrib/roi_ops.cc (ROIPooling, ROIAlign)
void register_bounding_box_ops(Registry& r);             // src/op/contrib/box_nms.cc (box_iou, box_nms; calls:)
void register_box_codec_ops(Registry& r);                // src/op/contrib/box_codec.cc (box_encode/decode, matching)
void register_multibox_ops(Registry& r);                 // src/op/contrib/multibox.cc (MultiBoxPrior/Target; calls:)
void register_multibox_detection_op(Registry& r);        // src/op/contrib/multibox_detection.cc
void register_proposal_ops(Registry& r);                 // src/op/contrib/proposal.cc (Proposal, MultiProposal)
void register_interleaved_matmul_ops(Registry& r);       // src/op/contrib/interleaved_matmul.cc
void register_custom_op(Registry& r);                    // src/op/custom/custom_op.cc
void register_adamw_update_ops(Registry& r);             // src/op/optimizer/adamw_update_op.cc
void register_lamb_update_ops(Registry& r);              // src/op/optimizer/lamb_update_op.cc
void register_lars_ops(Registry& r);                     // src/op/optimizer/lars_ops.cc
void register_group_adagrad_op(Registry& r);             // src/op/optimizer/group_adagrad_op.cc
void register_straight_through_ops(Registry& r);         // src/op/contrib/straight_through.cc
void register_khatri_rao_op(Registry& r);                // src/op/contrib/khatri_rao.cc
void register_fft_ops(Registry& r);                      // src/op/contrib/fft_ops.cc (fft, ifft)
void register_count_sketch_op(Registry& r);              // src/op/contrib/count_sketch.cc
void register_boolean_mask_op(Registry& r);              // src/op/contrib/boolean_mask.cc
void register_hawkesll_op(Registry& r);                  // src/op/contrib/hawkesll.cc
void register_deformable_convolution_ops(Registry& r);   // src/op/contrib/deformable_convolution.cc
void register_deformable_psroi_pooling_op(Registry& r);  // src/op/contrib/deformable_psroi_pooling.cc
void register_mrcnn_mask_target_op(Registry& r);         // src/op/contrib/mrcnn_mask_target.cc
void register_identity_attach_kl_sparse_reg_op(Registry& r);  // src/op/nn/identity_attach_kl_sparse_reg.cc
void register_histogram_ops(Registry& r);                     // src/op/tensor/histogram.cc
void register_resize_ops(Registry& r);          // src/op/contrib/resize_ops.cc (AdaptiveAvgPooling2D, BilinearResize2D)
void register_quantize_ops(Registry& r);        // src/op/contrib/quantize.cc (quantize, dequantize)
void register_sparse_storage_ops(Registry& r);  // src/op/sparse/storage_ops.cc (cast_storage, _sparse_*)
void register_csr_dot_ops(Registry& r);         // src/op/sparse/csr_dot.cc (_sparse_csr_dot_dense)

// GPU kernels, attached to the ops registered above (builds with CUDA only).
void register_elemwise_unary_gpu_kernels(Registry& r);   // src/op/tensor/elemwise_unary.cu
void register_elemwise_binary_gpu_kernels(Registry& r);  // src/op/tensor/elemwise_binary.cu
// nn: layers and the products they run on
void register_matrix_dot_gpu_kernels(Registry& r);         // src/op/tensor/matrix_dot.cu
void register_fully_connected_gpu_kernels(Registry& r);    // src/op/nn/fully_connected.cu
void register_convolution_gpu_kernels(Registry& r);        // src/op/nn/convolution.cu
void register_pooling_gpu_kernels(Registry& r);            // src/op/nn/pooling.cu
void register_activation_gpu_kernels(Registry& r);         // src/op/nn/activation.cu
void register_softmax_gpu_kernels(Registry& r);            // src/op/nn/softmax.cu
void register_softmax_output_gpu_kernels(Registry& r);     // src/op/nn/softmax_output.cu
void register_batch_norm_gpu_kernels(Registry& r);         // src/op/nn/batch_norm.cu
void register_leaky_relu_gpu_kernels(Registry& r);         // src/op/nn/leaky_relu.cu
void register_dropout_gpu_kernels(Registry& r);            // src/op/nn/dropout.cu
void register_layer_norm_gpu_kernels(Registry& r);         // src/op/nn/layer_norm.cu
void register_embedding_gpu_kernels(Registry& r);          // src/op/nn/embedding.cu
void register_regression_output_gpu_kernels(Registry& r);  // src/op/nn/regression_output.cu
void register_lrn_gpu_kernels(Registry& r);                // src/op/nn/lrn.cu
void register_l2_normalization_gpu_kernels(Registry& r);   // src/op/nn/l2_normalization.cu
void register_upsampling_gpu_kernels(Registry& r);         // src/op/nn/upsampling.cu
// tensor
void register_init_gpu_kernels(Registry& r);             // src/op/tensor/init.cu
void register_matrix_gpu_kernels(Registry& r);           // src/op/tensor/strided_copy.cu (+ Flatten)
void register_reduce_gpu_kernels(Registry& r);           // src/op/tensor/reduce.cu, reduce_arg.cu
void register_indexing_gpu_kernels(Registry& r);         // src/op/tensor/indexing.cu
void register_broadcast_gpu_kernels(Registry& r);        // src/op/tensor/broadcast_ops.cu
void register_elemwise_scalar_gpu_kernels(Registry& r);  // src/op/tensor/elemwise_scalar.cu
void register_optimizer_gpu_kernels(Registry& r);        // src/op/optimizer/optimizer_ops.cu
void register_all_finite_gpu_kernels(Registry& r);       // src/op/tensor/all_finite.cu
void register_random_gpu_kernels(Registry& r);           // src/op/tensor/random.cu
void register_ordering_gpu_kernels(Registry& r);         // src/op/tensor/ordering.cu
void register_add_n_gpu_kernels(Registry& r);            // src/op/tensor/add_n.cu
void register_pad_gpu_kernels(Registry& r);              // src/op/tensor/pad.cu

}  // namespace braid::op::detail
