#pragma once
// Internal: row-major GEMM on OpenBLAS for float and double.
#include <cblas.h>

#include <cstdint>
#include <type_traits>

namespace braid::op::detail {

/// c (m x n) = alpha * op(a) (m x k) * op(b) (k x n) + beta * c, row-major with leading dims.
/// Empty products are fine (k = 0 scales c by beta); BLAS would reject their leading dims.
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  const auto t = [](bool x) { return x ? CblasTrans : CblasNoTrans; };
  const auto i = [](int64_t x) { return static_cast<int>(x); };
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, t(ta), t(tb), i(m), i(n), i(k), alpha, a, i(lda), b, i(ldb), beta, c, i(ldc));
  else
    cblas_dgemm(CblasRowMajor, t(ta), t(tb), i(m), i(n), i(k), alpha, a, i(lda), b, i(ldb), beta, c, i(ldc));
}

}  // namespace braid::op::detail
