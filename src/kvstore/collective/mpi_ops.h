#pragma once
// Internal: Braid's dtypes as MPI sees them. float16 has no MPI type: it travels as 2 bytes and
// sums through a user-defined MPI operation (as Horovod does).
#include <mpi.h>

#include <cstdint>

#include "braid/base/dtype.h"

namespace braid::collective::detail {

/// Creates the float16 type and operation (after MPI_Init) and frees them (before MPI_Finalize).
void create_mpi_types();
void free_mpi_types();

MPI_Datatype mpi_type(DType dtype);
/// The sum of `dtype`'s values.
MPI_Op mpi_sum(DType dtype);
/// data[i] *= factor for `n` elements (integers rounded toward zero).
void scale(DType dtype, void* data, int64_t n, double factor);
/// Throws naming MPI's error when `rc` is not MPI_SUCCESS.
void check_mpi(int rc, const char* what);

}  // namespace braid::collective::detail
