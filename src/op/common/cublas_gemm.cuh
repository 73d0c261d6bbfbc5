#pragma once
// Row-major matrix products on cuBLAS, for the GPU kernels of dot, batch_dot and FullyConnected:
// the same contract as detail::gemm_batched (gemm.h), on the calling worker's stream.
#include <cstdint>

#include "op/common/gemm.h"

namespace braid::op::cuda {

/// `batch` products C = op(A)·op(B) of contiguous row-major matrices (dims in `g`), the i-th on
/// a + i·stride_a, b + i·stride_b, c + i·stride_c; C is overwritten, or added to when
/// `accumulate`. Enqueued on stream(); errors name `op`. T: float or double, computed in T's
/// precision (no TF32 unless allowed: cuda::allow_tf32), or __half / __nv_bfloat16, accumulated
/// in float.
template <class T>
void gemm_batched(const detail::GemmDims& g, int64_t batch, const T* a, int64_t stride_a, const T* b, int64_t stride_b,
                  T* c, int64_t stride_c, bool accumulate, const char* op);

}  // namespace braid::op::cuda
