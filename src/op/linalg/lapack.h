#pragma once
// Internal: the BLAS-3 and LAPACK routines of the linalg operators, on OpenBLAS (opened at the
// first call, see op/common/openblas.h), for float and double. Every matrix is row-major with a
// leading dimension (the distance between rows); the column-major LAPACK routines are called on
// the transposed view, which is why the `lower` flags flip inside. Dimensions must fit 32 bits.
#include <cstdint>

namespace braid::op::detail::lapack {

/// c (m×n) = alpha op(a) op(b) + beta c.
template <class T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc);

/// b (m×n) = alpha op(a)^-1 b, or alpha b op(a)^-1 when `right`; a is triangular (its other
/// triangle is not read).
template <class T>
void trsm(bool right, bool lower, bool trans, int64_t m, int64_t n, T alpha, const T* a, int64_t lda, T* b,
          int64_t ldb);

/// b (m×n) = alpha op(a) b, or alpha b op(a) when `right`; a triangular as for trsm.
template <class T>
void trmm(bool right, bool lower, bool trans, int64_t m, int64_t n, T alpha, const T* a, int64_t lda, T* b,
          int64_t ldb);

/// Cholesky factor of the symmetric positive-definite n×n `a`, in place: a = L L^T (lower) or
/// U^T U, in that triangle; the other triangle is left as it was. Returns LAPACK's info: 0, or
/// i > 0 when the leading minor of order i is not positive definite.
template <class T>
int potrf(bool lower, int64_t n, T* a, int64_t lda);

/// From a Cholesky factor (as potrf leaves it), the inverse of the matrix it factors, in the same
/// triangle. Returns info (i > 0: the factor has a zero on its diagonal).
template <class T>
int potri(bool lower, int64_t n, T* a, int64_t lda);

/// LQ factorization of the m×n `a` (m <= n): a = L Q with L lower triangular m×m (written to `l`,
/// upper triangle zero) and Q row-orthonormal m×n (overwrites a, contiguous).
template <class T>
void gelqf(int64_t m, int64_t n, T* a, T* l);

/// Eigendecomposition of the symmetric n×n `a` (contiguous): ascending eigenvalues to w and the
/// eigenvectors as the rows of a. Returns info (i > 0: no convergence).
template <class T>
int syevd(int64_t n, T* a, T* w);

/// LU factorization with partial pivoting of the n×n `a` (contiguous, in place) and its pivots.
/// Returns info (i > 0: U(i, i) is exactly zero).
template <class T>
int getrf(int64_t n, T* a, int* pivots);

/// The inverse of the matrix that getrf factored, in place.
template <class T>
void getri(int64_t n, T* a, const int* pivots);

}  // namespace braid::op::detail::lapack
