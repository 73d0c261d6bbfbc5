#pragma once
// Matrix products on OpenBLAS, row-major.
#include <cstdint>

namespace braid::op::detail {

/// C (m×n) = op(A)·op(B) with op(A) m×k and op(B) k×n. A is stored m×k, or k×m when trans_a;
/// B is stored k×n, or n×k when trans_b.
struct GemmDims {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
};

/// `batch` independent products, the i-th on a + i·stride_a, b + i·stride_b, c + i·stride_c
/// (strides in elements); C is overwritten, or added to when `accumulate`. T: float or double.
template <class T>
void gemm_batched(const GemmDims& g, int64_t batch, const T* a, int64_t stride_a, const T* b,
                  int64_t stride_b, T* c, int64_t stride_c, bool accumulate);

}  // namespace braid::op::detail
