#include "register_all.h"

#include "op/common/float16_compute.h"
#include "op/control_flow/control_flow.h"
#include "op/linalg/linalg_util.h"
#include "op/sparse/scatter_ops.h"
#include "op/sparse/sparse_embedding.h"
#include "op/tensor/add_n.h"
#include "op/tensor/make_loss.h"
#include "op/tensor/pad.h"
#include "op/tensor/random_pdf.h"
#include "op/tensor/random_zipfian.h"
#include "op/tensor/shape_array.h"

namespace braid::op::detail {

void register_all_ops(Registry& r) {
  register_init_ops(r);
  register_amp_cast_ops(r);
  register_all_finite_ops(r);
  register_reset_arrays_ops(r);
  register_make_loss_ops(r);
  register_shape_array_ops(r);
  register_pad_ops(r);
  register_add_n_ops(r);
  register_random_pdf_ops(r);
  register_random_zipfian_ops(r);
  register_elemwise_unary_ops(r);
  register_random_ops(r);
  register_elemwise_binary_ops(r);
  register_elemwise_scalar_ops(r);
  register_broadcast_ops(r);
  register_matrix_ops(r);
  register_reduce_ops(r);
  register_indexing_ops(r);
  register_ordering_ops(r);
  register_nn_conv_ops(r);
  register_nn_ops(r);
  register_optimizer_ops(r);
  register_multi_update_ops(r);
  register_image_ops(r);
  register_zero_grad_ops(r);
  register_batch_take_ops(r);
  register_contrib_math_ops(r);
  register_moments_ops(r);
  register_diag_ops(r);
  register_gather_scatter_nd_ops(r);
  register_ravel_ops(r);
  register_index_copy_ops(r);
  register_arange_like_ops(r);
  register_roi_ops(r);
  register_bounding_box_ops(r);
  register_multibox_ops(r);
  register_proposal_ops(r);
  register_resize_ops(r);
  register_quantize_ops(r);
  register_sparse_storage_ops(r);
  register_csr_dot_ops(r);
  register_histogram_ops(r);
  register_interleaved_matmul_ops(r);
  register_custom_op(r);
  register_control_flow_ops(r);
  register_adamw_update_ops(r);
  register_lamb_update_ops(r);
  register_lars_ops(r);
  register_group_adagrad_op(r);
  register_straight_through_ops(r);
  register_khatri_rao_op(r);
  register_fft_ops(r);
  register_count_sketch_op(r);
  register_boolean_mask_op(r);
  register_hawkesll_op(r);
  register_deformable_convolution_ops(r);
  register_deformable_psroi_pooling_op(r);
  register_mrcnn_mask_target_op(r);
  register_identity_attach_kl_sparse_reg_op(r);
  linalg::register_blas3_ops(r);
  linalg::register_factor_ops(r);
  linalg::register_inverse_ops(r);
  linalg::register_triangle_ops(r);
#if BRAID_CUDA_KERNELS
  register_elemwise_unary_gpu_kernels(r);
  register_elemwise_binary_gpu_kernels(r);
  // nn
  register_matrix_dot_gpu_kernels(r);
  register_fully_connected_gpu_kernels(r);
  register_convolution_gpu_kernels(r);
  register_pooling_gpu_kernels(r);
  register_activation_gpu_kernels(r);
  register_softmax_gpu_kernels(r);
  register_softmax_output_gpu_kernels(r);
  register_batch_norm_gpu_kernels(r);
  register_leaky_relu_gpu_kernels(r);
  register_dropout_gpu_kernels(r);
  register_layer_norm_gpu_kernels(r);
  register_embedding_gpu_kernels(r);
  register_regression_output_gpu_kernels(r);
  register_lrn_gpu_kernels(r);
  register_l2_normalization_gpu_kernels(r);
  register_upsampling_gpu_kernels(r);
  // tensor
  register_init_gpu_kernels(r);
  register_matrix_gpu_kernels(r);
  register_reduce_gpu_kernels(r);
  register_indexing_gpu_kernels(r);
  register_broadcast_gpu_kernels(r);
  register_elemwise_scalar_gpu_kernels(r);
  register_optimizer_gpu_kernels(r);
  register_random_gpu_kernels(r);
  register_ordering_gpu_kernels(r);
  register_all_finite_gpu_kernels(r);
  register_add_n_gpu_kernels(r);
  register_pad_gpu_kernels(r);
#endif
  // Copies of operators under MXNet's other names, with every kernel registered above.
  register_scatter_ops(r);
  register_sparse_embedding(r);
  compute_16bit_in_float32(r);  // after every kernel is registered
}

}  // namespace braid::op::detail
