#pragma once
// float64 matrix products on OpenBLAS, opened on the first one rather than linked.
//
// Once loaded, OpenBLAS starts a pthread per core that spins in sched_yield for ~0.1 s (and again
// after every threaded call): linked, it took a core from every Braid process at start, whether
// it multiplied doubles or not (a `braid infer` client spent half its system time there). Opened
// here, it is set to one thread and the products are split by rows over the calling kernel's
// OpenMP threads. When the process had loaded it already (NumPy in the same Python process), its
// thread setting is left as it is and each product goes to it whole.
#include <cstdint>

namespace braid::op::detail {

/// c (m×n) = alpha·op(a)·op(b) + beta·c, row-major, op(a) m×k, op(b) k×n, m, n, k ≥ 1. Throws
/// when OpenBLAS cannot be opened or a dimension exceeds its 32-bit interface.
void openblas_dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                    int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

}  // namespace braid::op::detail
