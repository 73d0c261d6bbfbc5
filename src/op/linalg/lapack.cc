#include "lapack.h"

#include <cblas.h>
#include <dlfcn.h>

#include <climits>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "braid/base/error.h"
#include "op/common/gemm.h"
#include "op/common/openblas.h"

namespace braid::op::detail::lapack {
namespace {

// LAPACK's Fortran entry points (column-major; gfortran passes the lengths of character
// arguments last).
template <class T>
struct Lapack {
  using potrf_fn = void (*)(const char*, const int*, T*, const int*, int*, size_t);
  using geqrf_fn = void (*)(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
  using orgqr_fn = void (*)(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);
  using syevd_fn = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, int*, const int*,
                            int*, size_t, size_t);
  using getrf_fn = void (*)(const int*, const int*, T*, const int*, int*, int*);
  using getri_fn = void (*)(const int*, T*, const int*, const int*, T*, const int*, int*);
  using tri_fn = void (*)(CBLAS_ORDER, CBLAS_SIDE, CBLAS_UPLO, CBLAS_TRANSPOSE, CBLAS_DIAG, blasint, blasint, T,
                          const T*, blasint, T*, blasint);

  potrf_fn potrf, potri;
  geqrf_fn geqrf;
  orgqr_fn orgqr;
  syevd_fn syevd;
  getrf_fn getrf;
  getri_fn getri;
  tri_fn trsm, trmm;
};

template <class Fn>
Fn find(void* library, const std::string& name) {
  auto* fn = reinterpret_cast<Fn>(dlsym(library, name.c_str()));
  BRAID_CHECK(fn, "OpenBLAS (libopenblas.so.0) has no ", name, "; the linalg operators need an OpenBLAS built with ",
              "LAPACK (Debian's libopenblas0)");
  return fn;
}

template <class T>
const Lapack<T>& routines() {
  static const Lapack<T> lib = [] {
    void* so = openblas_library();
    const std::string p = std::is_same_v<T, float> ? "s" : "d";
    Lapack<T> l;
    l.potrf = find<typename Lapack<T>::potrf_fn>(so, p + "potrf_");
    l.potri = find<typename Lapack<T>::potrf_fn>(so, p + "potri_");
    l.geqrf = find<typename Lapack<T>::geqrf_fn>(so, p + "geqrf_");
    l.orgqr = find<typename Lapack<T>::orgqr_fn>(so, p + "orgqr_");
    l.syevd = find<typename Lapack<T>::syevd_fn>(so, p + "syevd_");
    l.getrf = find<typename Lapack<T>::getrf_fn>(so, p + "getrf_");
    l.getri = find<typename Lapack<T>::getri_fn>(so, p + "getri_");
    l.trsm = find<typename Lapack<T>::tri_fn>(so, "cblas_" + p + "trsm");
    l.trmm = find<typename Lapack<T>::tri_fn>(so, "cblas_" + p + "trmm");
    return l;
  }();
  return lib;
}

int i32(int64_t v) {
  BRAID_CHECK(v <= INT_MAX, "linalg: a matrix dimension of ", v, " exceeds LAPACK's 32-bit interface");
  return static_cast<int>(v);
}

// The workspace size a LAPACK query (lwork = -1) reported.
template <class T>
int workspace(T reported) {
  return std::max(1, static_cast<int>(reported));
}

}  // namespace

// Braid's own products (oneDNN for float, OpenBLAS for double: op/common/gemm.h).
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  detail::gemm<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// trsm and trmm share their arguments.
template <class T>
void triangular(typename Lapack<T>::tri_fn fn, bool right, bool lower, bool trans, int64_t m, int64_t n, T alpha,
                const T* a, int64_t lda, T* b, int64_t ldb) {
  if (m == 0 || n == 0) return;
  fn(CblasRowMajor, right ? CblasRight : CblasLeft, lower ? CblasLower : CblasUpper, trans ? CblasTrans : CblasNoTrans,
     CblasNonUnit, i32(m), i32(n), alpha, a, i32(lda), b, i32(ldb));
}

template <class T>
void trsm(bool right, bool lower, bool trans, int64_t m, int64_t n, T alpha, const T* a, int64_t lda, T* b,
          int64_t ldb) {
  triangular(routines<T>().trsm, right, lower, trans, m, n, alpha, a, lda, b, ldb);
}

template <class T>
void trmm(bool right, bool lower, bool trans, int64_t m, int64_t n, T alpha, const T* a, int64_t lda, T* b,
          int64_t ldb) {
  triangular(routines<T>().trmm, right, lower, trans, m, n, alpha, a, lda, b, ldb);
}

// potrf and potri share their arguments; row-major lower is column-major upper.
template <class T>
int cholesky(typename Lapack<T>::potrf_fn fn, bool lower, int64_t n, T* a, int64_t lda) {
  const int nn = i32(n), ld = i32(lda);
  int info = 0;
  fn(lower ? "U" : "L", &nn, a, &ld, &info, 1);
  return info;
}

template <class T>
int potrf(bool lower, int64_t n, T* a, int64_t lda) {
  return cholesky(routines<T>().potrf, lower, n, a, lda);
}

template <class T>
int potri(bool lower, int64_t n, T* a, int64_t lda) {
  return cholesky(routines<T>().potri, lower, n, a, lda);
}

// Column-major, the buffer is a^T (n×m): its QR, a^T = Q^T R, is a = R^T Q.
template <class T>
void gelqf(int64_t m, int64_t n, T* a, T* l) {
  const Lapack<T>& lib = routines<T>();
  const int rows = i32(n), cols = i32(m), ld = rows;
  std::vector<T> tau(static_cast<size_t>(m));
  int info = 0, query = -1;
  T size{};
  lib.geqrf(&rows, &cols, a, &ld, tau.data(), &size, &query, &info);
  int lwork = workspace(size);
  lib.orgqr(&rows, &cols, &cols, a, &ld, tau.data(), &size, &query, &info);
  lwork = std::max(lwork, workspace(size));
  std::vector<T> work(static_cast<size_t>(lwork));
  lib.geqrf(&rows, &cols, a, &ld, tau.data(), work.data(), &lwork, &info);
  BRAID_CHECK(info == 0, "linalg.gelqf: LAPACK's geqrf failed (info ", info, ")");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) l[i * m + j] = j <= i ? a[j + i * n] : T(0);  // L(i, j) = R(j, i)
  lib.orgqr(&rows, &cols, &cols, a, &ld, tau.data(), work.data(), &lwork, &info);
  BRAID_CHECK(info == 0, "linalg.gelqf: LAPACK's orgqr failed (info ", info, ")");
}

template <class T>
int syevd(int64_t n, T* a, T* w) {
  const Lapack<T>& lib = routines<T>();
  const int nn = i32(n);
  int info = 0, query = -1, isize = 0;
  T size{};
  lib.syevd("V", "L", &nn, a, &nn, w, &size, &query, &isize, &query, &info, 1, 1);
  int lwork = workspace(size), liwork = std::max(1, isize);
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  lib.syevd("V", "L", &nn, a, &nn, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  return info;
}

template <class T>
int getrf(int64_t n, T* a, int* pivots) {
  const int nn = i32(n);
  int info = 0;
  routines<T>().getrf(&nn, &nn, a, &nn, pivots, &info);
  return info;
}

template <class T>
void getri(int64_t n, T* a, const int* pivots) {
  const Lapack<T>& lib = routines<T>();
  const int nn = i32(n);
  int info = 0, query = -1;
  T size{};
  lib.getri(&nn, a, &nn, pivots, &size, &query, &info);
  int lwork = workspace(size);
  std::vector<T> work(static_cast<size_t>(lwork));
  lib.getri(&nn, a, &nn, pivots, work.data(), &lwork, &info);
  BRAID_CHECK(info == 0, "linalg.inverse: the matrix is singular (U(", info, ", ", info, ") is zero)");
}

#define BRAID_LAPACK_INSTANTIATE(T)                                                                            \
  template void gemm<T>(bool, bool, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*, \
                        int64_t);                                                                              \
  template void trsm<T>(bool, bool, bool, int64_t, int64_t, T, const T*, int64_t, T*, int64_t);                \
  template void trmm<T>(bool, bool, bool, int64_t, int64_t, T, const T*, int64_t, T*, int64_t);                \
  template int potrf<T>(bool, int64_t, T*, int64_t);                                                           \
  template int potri<T>(bool, int64_t, T*, int64_t);                                                           \
  template void gelqf<T>(int64_t, int64_t, T*, T*);                                                            \
  template int syevd<T>(int64_t, T*, T*);                                                                      \
  template int getrf<T>(int64_t, T*, int*);                                                                    \
  template void getri<T>(int64_t, T*, const int*);
BRAID_LAPACK_INSTANTIATE(float)
BRAID_LAPACK_INSTANTIATE(double)
#undef BRAID_LAPACK_INSTANTIATE

}  // namespace braid::op::detail::lapack
