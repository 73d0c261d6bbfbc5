// The matrix family: products, layout changes, reshapes, repetition, joining and splitting.
#include "matrix_util.h"

namespace braid::op::detail {

void register_matrix_ops(Registry& r) {
  register_matrix_dot_ops(r);
  register_matrix_layout_ops(r);
  register_matrix_slice_ops(r);
  register_matrix_reshape_ops(r);
  register_matrix_np_reshape_ops(r);
  register_matrix_repeat_ops(r);
  register_matrix_join_ops(r);
}

}  // namespace braid::op::detail
