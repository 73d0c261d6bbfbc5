#pragma once
// Internal helpers shared by the matrix family (dot, transpose, reshape, concat, tile, ...).
#include <string>
#include <vector>

#include "braid/base/np_shape.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {

// The files of the family; register_matrix_ops (matrix.cc) calls each.
void register_matrix_dot_ops(Registry& r);         // matrix_dot.cc: dot, batch_dot
void register_matrix_layout_ops(Registry& r);      // matrix_layout.cc: transpose, swapaxes, flip, slice_axis
void register_matrix_slice_ops(Registry& r);       // matrix_slice.cc: slice, _slice_assign(_scalar), slice_like
void register_matrix_reshape_ops(Registry& r);     // matrix_reshape.cc: Reshape, reshape_like, expand_dims, squeeze
void register_matrix_np_reshape_ops(Registry& r);  // matrix_np_reshape.cc: _np_reshape, _npx_reshape
void register_matrix_repeat_ops(Registry& r);      // matrix_repeat.cc: tile, repeat
void register_matrix_join_ops(Registry& r);        // matrix_join.cc: concat, stack, split, _split_v2

/// How a pure data-movement op reads its input: walking `shape` in row-major order visits the
/// output's elements in order, and each takes in[offset + index·strides].
struct InputView {
  int64_t offset = 0;
  Dims shape, strides;
  /// Every input element is read exactly once (transpose, flip, reshape), so the backward may
  /// write the gradient without clearing it first.
  bool bijective = false;
};

using ViewFn = std::function<InputView(const std::any& param, const Shape& in)>;
using ShapeFn = std::function<Shape(const std::any& param, const Shape& in)>;

/// Registers a one-input data-movement op `d` (name, doc, parse already set): its output shape
/// is `shape(input shape)`, its forward gathers through `view` and its backward sums the output
/// gradient back through it. Works for every BRAID_TYPE_SWITCH dtype. A view that `keeps_size`
/// (reshape, transpose) also infers one unknown input dimension from a known output shape.
/// `input_of` (optional), for ops that only permute axes: the input shape that gives an output
/// shape, so that an unknown input is inferred from a known output (sym.ones(shape=(-1, -1)).T + x).
void add_view_op(Registry& r, OpDef d, ShapeFn shape, ViewFn view, bool keeps_size = false, ShapeFn input_of = nullptr);

/// The view of a reshape: the elements in order, whatever the shapes.
InputView elements_in_order(const std::any& param, const Shape& in);

/// Normalizes possibly negative `axes` of an `ndim`-D array; throws naming `op` when one is out
/// of range or repeated.
std::vector<int> normalize_axes(const std::string& op, const std::vector<int64_t>& axes, int ndim, const Shape& shape);

/// Normalizes one axis of an `ndim`-D shape (ndim may exceed shape.ndim() for expand_dims and
/// stack, which insert an axis); throws naming `op`, the attribute and the valid range.
int normalize_axis(const std::string& op, const char* attr, int64_t axis, int ndim, const Shape& shape);

}  // namespace braid::op::detail
