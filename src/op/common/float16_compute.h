#pragma once
// Internal: float16 and bfloat16 arrays on every operator. Kernels compute in float32 or float64;
// an operator given 16-bit float arrays runs its kernel on float32 copies of them (inputs
// converted, the outputs and what the op updates in place rounded back after, to nearest even),
// which is what MXNet's 16-bit kernels compute (they widen to float) for one operator. Operators
// that handle 16-bit arrays themselves (the mp_ optimizer updates; on a GPU the conversions and
// fills) are left alone.
#include "braid/op/registry.h"

namespace braid::op::detail {

/// Wraps the kernels of every operator registered so far (called once, after registration).
void compute_16bit_in_float32(Registry& r);

#if BRAID_CUDA_KERNELS
/// `from` converted into `to` (same size) on the calling worker's stream (init.cu).
void convert_gpu(const TBlob& from, const TBlob& to, const char* op);
/// Throws braid::Error when the calling worker's stream is capturing a CUDA graph: the float32
/// copies are pooled memory that the graph would keep using after it is given back, so the
/// capture is refused and the block runs without a graph (float16_compute.cu).
void refuse_graph_capture(const char* op);
#endif

}  // namespace braid::op::detail
