#include "gemm.h"

#include <oneapi/dnnl/dnnl.h>

#include "braid/base/error.h"
#include "openblas.h"

namespace braid::op::detail {
namespace {

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const dnnl_status_t status = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  BRAID_CHECK(status == dnnl_success, "oneDNN sgemm of ", m, "x", k, " by ", k, "x", n, " failed (status ",
              static_cast<int>(status), ")");
}

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
               const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  openblas_dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

template <class T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum; BLAS rejects the zero leading dimensions
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  blas_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <class T>
void gemm_batched(const GemmDims& g, int64_t batch, const T* a, int64_t stride_a, const T* b, int64_t stride_b, T* c,
                  int64_t stride_c, bool accumulate) {
  const int64_t lda = g.trans_a ? g.m : g.k, ldb = g.trans_b ? g.k : g.n;
  for (int64_t i = 0; i < batch; ++i)
    gemm(g.trans_a, g.trans_b, g.m, g.n, g.k, T(1), a + i * stride_a, lda, b + i * stride_b, ldb,
         accumulate ? T(1) : T(0), c + i * stride_c, g.n);
}

#define BRAID_INSTANTIATE_GEMM(T)                                                                              \
  template void gemm<T>(bool, bool, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*, \
                        int64_t);                                                                              \
  template void gemm_batched<T>(const GemmDims&, int64_t, const T*, int64_t, const T*, int64_t, T*, int64_t, bool);
BRAID_INSTANTIATE_GEMM(float)
BRAID_INSTANTIATE_GEMM(double)
#undef BRAID_INSTANTIATE_GEMM

}  // namespace braid::op::detail
