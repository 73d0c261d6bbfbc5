#include "gemm.h"

#include <cblas.h>

#include <algorithm>
#include <climits>

#include "braid/base/error.h"

namespace braid::op::detail {
namespace {

void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, const float* a,
          blasint lda, const float* b, blasint ldb, float beta, float* c, blasint ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}

void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, const double* a,
          blasint lda, const double* b, blasint ldb, double beta, double* c, blasint ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

template <class T>
void gemm_batched(const GemmDims& g, int64_t batch, const T* a, int64_t stride_a, const T* b,
                  int64_t stride_b, T* c, int64_t stride_c, bool accumulate) {
  if (g.m == 0 || g.n == 0 || batch == 0) return;
  if (g.k == 0) {  // an empty sum; BLAS rejects the zero leading dimensions
    for (int64_t i = 0; i < batch && !accumulate; ++i)
      std::fill(c + i * stride_c, c + i * stride_c + g.m * g.n, T(0));
    return;
  }
  BRAID_CHECK(g.m <= INT_MAX && g.n <= INT_MAX && g.k <= INT_MAX, "matrix product of ", g.m, "x",
              g.k, " by ", g.k, "x", g.n, " exceeds the 32-bit BLAS interface");
  const auto m = static_cast<blasint>(g.m), n = static_cast<blasint>(g.n), k = static_cast<blasint>(g.k);
  const CBLAS_TRANSPOSE ta = g.trans_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = g.trans_b ? CblasTrans : CblasNoTrans;
  const blasint lda = g.trans_a ? m : k, ldb = g.trans_b ? k : n;
  for (int64_t i = 0; i < batch; ++i)
    gemm(ta, tb, m, n, k, a + i * stride_a, lda, b + i * stride_b, ldb, accumulate ? T(1) : T(0),
         c + i * stride_c, n);
}

template void gemm_batched<float>(const GemmDims&, int64_t, const float*, int64_t, const float*,
                                  int64_t, float*, int64_t, bool);
template void gemm_batched<double>(const GemmDims&, int64_t, const double*, int64_t, const double*,
                                   int64_t, double*, int64_t, bool);

}  // namespace braid::op::detail
