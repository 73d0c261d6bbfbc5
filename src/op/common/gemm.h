#pragma once
// Matrix products, row-major: float on oneDNN's sgemm, double on OpenBLAS (openblas.h).
//
// float goes to oneDNN because its GEMM threads are the OpenMP pool every other kernel uses;
// OpenBLAS's own pthreads spin in sched_yield for a while after each call and, on a machine with
// few cores, take them from the next kernel (LeNet trained 20% faster once they stopped), so
// OpenBLAS runs on one thread and double products are split over OpenMP instead.
#include <cstdint>

namespace braid::op::detail {

/// c (m×n) = alpha·op(a)·op(b) + beta·c with op(a) m×k, op(b) k×n and leading dimensions
/// lda, ldb, ldc. Empty products are fine (k = 0 scales c by beta). T: float or double.
template <class T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc);

/// C (m×n) = op(A)·op(B) with op(A) m×k and op(B) k×n. A is stored m×k, or k×m when trans_a;
/// B is stored k×n, or n×k when trans_b.
struct GemmDims {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
};

/// `batch` independent products, the i-th on a + i·stride_a, b + i·stride_b, c + i·stride_c
/// (strides in elements); C is overwritten, or added to when `accumulate`. T: float or double.
template <class T>
void gemm_batched(const GemmDims& g, int64_t batch, const T* a, int64_t stride_a, const T* b, int64_t stride_b, T* c,
                  int64_t stride_c, bool accumulate);

}  // namespace braid::op::detail
