#pragma once
// The one data-movement kernel behind transpose, flip, slice_axis, tile, repeat, concat, stack
// and split: copying a logical N-D array between two strided layouts.
#include <cstdint>
#include <vector>

#include "braid/base/context.h"
#include "braid/op/tensor.h"

namespace braid::op::detail {

using Dims = std::vector<int64_t>;

/// Row-major strides of a contiguous array of `shape`.
Dims contiguous_strides(const Dims& shape);

/// For every index i of `shape`: dst[dst_offset + i·dst_strides] = (or +=, per req)
/// src[src_offset + i·src_strides]. Write works for every dtype, Add for the BRAID_TYPE_SWITCH
/// ones (others throw naming `op`). Offsets and strides are in elements; strides may be negative
/// or 0 (a 0 source stride repeats an element, a 0 destination stride with req Add sums into
/// it). Dimensions are merged where both layouts allow, and a transposing copy is done in
/// cache-sized tiles.
void strided_copy(DType dtype, const void* src, int64_t src_offset, const Dims& src_strides, void* dst,
                  int64_t dst_offset, const Dims& dst_strides, const Dims& shape, OpReq req, const char* op);

/// Sets every element of `b` to zero.
void fill_zero(const TBlob& b);

/// A copy's layout with size-1 dimensions dropped and neighbours that are contiguous in both
/// layouts merged (a plain copy becomes one row, a transpose of (a, b, c) -> (c, a, b) 2-D);
/// never empty.
struct CopyLayout {
  Dims shape, src, dst;
};
CopyLayout simplify_layout(const Dims& shape, const Dims& src_strides, const Dims& dst_strides);

/// The data movement of one device type, with the signatures above: the data-movement ops
/// (transpose, concat, tile, ...) run on the CPU and the GPU with one kernel each, which moves
/// its data through data_mover(ctx).
struct DataMover {
  decltype(&strided_copy) copy;
  decltype(&fill_zero) zero;
};
const DataMover& data_mover(Context ctx);

/// `from`'s elements into `to` (same size) in order, per req, on ctx's device.
void copy_in_order(Context ctx, const TBlob& from, const TBlob& to, OpReq req, const char* op);

#if BRAID_CUDA_KERNELS
/// The GPU's (strided_copy.cu).
void strided_copy_gpu(DType dtype, const void* src, int64_t src_offset, const Dims& src_strides, void* dst,
                      int64_t dst_offset, const Dims& dst_strides, const Dims& shape, OpReq req, const char* op);
void fill_zero_gpu(const TBlob& b);
#endif

}  // namespace braid::op::detail
