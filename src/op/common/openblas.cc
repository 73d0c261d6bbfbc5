#include "openblas.h"

#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "braid/base/error.h"

namespace braid::op::detail {
namespace {

constexpr const char* kLibrary = "libopenblas.so.0";

struct OpenBlas {
  void* library = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  bool split = false;  // set to one thread by us: split products over OpenMP
};

template <class Fn>
Fn symbol(void* library, const char* name) {
  auto* fn = reinterpret_cast<Fn>(dlsym(library, name));
  BRAID_CHECK(fn, kLibrary, " has no ", name, "; is it OpenBLAS? (Debian's libopenblas0)");
  return fn;
}

const OpenBlas& openblas() {
  static const OpenBlas lib = [] {  // a failure throws and leaves the next call to try again
    OpenBlas l;
    void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    const bool loaded_before = library != nullptr;
    if (!loaded_before) library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    BRAID_CHECK(library, "float64 matrix products and linalg need OpenBLAS, which could not be opened (", dlerror(),
                "); install Debian's libopenblas0");
    l.library = library;
    l.dgemm = symbol<decltype(&cblas_dgemm)>(library, "cblas_dgemm");
    // Loaded before (NumPy in the same Python process) with no thread count chosen by the user:
    // its threads would spin beside every OpenMP kernel, so Braid takes it to one thread too.
    const bool user_threads = std::getenv("OPENBLAS_NUM_THREADS") || std::getenv("GOTO_NUM_THREADS");
    if (!loaded_before || !user_threads) {
      symbol<decltype(&openblas_set_num_threads)>(library, "openblas_set_num_threads")(1);
      l.split = true;
    }
    return l;
  }();
  return lib;
}

}  // namespace

void* openblas_library() { return openblas().library; }

bool openblas_single_threaded() { return openblas().split; }

void openblas_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                    const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  BRAID_CHECK(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, "matrix product of ", m, "x", k, " by ", k, "x", n,
              " exceeds the 32-bit BLAS interface");
  const OpenBlas& lib = openblas();
  const auto rows = [&](int64_t first, int64_t count) {  // rows [first, first + count) of c
    lib.dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(count), static_cast<blasint>(n), static_cast<blasint>(k), alpha,
              a + (ta ? first : first * lda), static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta,
              c + first * ldc, static_cast<blasint>(ldc));
  };
  // Small products are not worth waking threads for: at least 8 rows and 32k multiply-adds each.
  const int64_t parts = !lib.split ? 1 : std::min<int64_t>({omp_get_max_threads(), m / 8, m * n * k / 32768});
  if (parts <= 1) return rows(0, m);
#pragma omp parallel for num_threads(static_cast <int>(parts))
  for (int64_t p = 0; p < parts; ++p) {
    const int64_t first = m * p / parts;
    rows(first, m * (p + 1) / parts - first);
  }
}

}  // namespace braid::op::detail
