#pragma once
// float64 matrix products (and, through openblas_library, the linalg operators' BLAS and LAPACK) on
// OpenBLAS, opened on the first use rather than linked.
//
// Once loaded, OpenBLAS starts a pthread per core that spins in sched_yield for ~0.1 s (and again
// after every threaded call): linked, it took a core from every Braid process at start, whether
// it multiplied doubles or not (a `braid infer` client spent half its system time there). Opened
// here, it is set to one thread and the work is split over the calling kernel's OpenMP threads
// (products by rows, linalg by matrices of the batch). Where the process had loaded it already
// (NumPy in the same Python process), the same is done (NumPy's own products then run on one
// thread too), unless OPENBLAS_NUM_THREADS or GOTO_NUM_THREADS is set: then its threads are left
// as they are and each call goes to it whole.
#include <cstdint>

namespace braid::op::detail {

/// The opened OpenBLAS library (dlopen handle; LAPACK lives in it too), set to one thread when it
/// was opened here. Throws when it cannot be opened.
void* openblas_library();

/// True when OpenBLAS runs on one thread (opened here), so that independent calls are best spread
/// over OpenMP; false when the process had loaded it already with threads of its own.
bool openblas_single_threaded();

/// c (m×n) = alpha·op(a)·op(b) + beta·c, row-major, op(a) m×k, op(b) k×n, m, n, k ≥ 1. Throws
/// when OpenBLAS cannot be opened or a dimension exceeds its 32-bit interface.
void openblas_dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                    int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

}  // namespace braid::op::detail
