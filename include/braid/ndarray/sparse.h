#pragma once
/// Compressed arrays (MXNet's row_sparse and csr storage, braid/base/storage_type.h): making them
/// from their parts, reading the parts, converting between storage types.
///
/// A compressed NDArray has the logical shape and dtype of the dense array it stands for, and its
/// parts are ordinary dense arrays. Copies of the handle share the parts; writing into the array
/// (an `out=` of an operator, copyto, a KVStore pull) replaces them, as the number of stored
/// rows or values may change. Operators without a compressed implementation run on a dense copy
/// (MXNet's storage fallback). Making a compressed array from dense values, or any result whose
/// stored positions depend on values, waits for those values: where the positions are, is known
/// before the call returns.
#include "braid/base/storage_type.h"
#include "braid/ndarray/ndarray.h"

namespace braid::sparse {

/// A `shape` (2-d) matrix in compressed sparse rows: `data` (nnz values), `indptr` (rows + 1
/// int64 offsets into data), `indices` (nnz int64 columns). Shapes and dtypes are checked now;
/// the values by check_format.
NDArray csr_matrix(const NDArray& data, const NDArray& indptr, const NDArray& indices, const Shape& shape);
/// A `shape` array whose rows `indices` (int64, ascending) hold `data` (len(indices) × shape[1:]).
NDArray row_sparse_array(const NDArray& data, const NDArray& indices, const Shape& shape);
/// An all-zero array of `stype` that stores nothing (a dense one for StorageType::Default).
NDArray zeros(StorageType stype, const Shape& shape, Context ctx = cpu(), DType dtype = DType::Float32);

/// The stored values: (nnz,) for csr, (stored rows, shape[1:]...) for row_sparse.
NDArray data(const NDArray& a);
/// The stored rows (row_sparse) or the columns of the stored values (csr).
NDArray indices(const NDArray& a);
/// csr only: where each row's values start in data().
NDArray indptr(const NDArray& a);
/// The auxiliary arrays in MXNet's order: csr {indptr, indices}, row_sparse {indices}.
std::vector<NDArray> aux(const NDArray& a);

/// A copy of `a`'s values in storage type `to` (MXNet's tostype and cast_storage).
NDArray cast_storage(const NDArray& a, StorageType to);
/// The rows of `a` (row_sparse, or dense: every row stored) listed in `row_ids` (any order,
/// repeats allowed), row_sparse (MXNet's sparse.retain).
NDArray retain(const NDArray& a, const NDArray& row_ids);

/// `arrays` with the compressed ones replaced by dense copies (what runs where only dense arrays
/// can, such as a compiled graph). While autograd records, each copy passes its gradient back to
/// the compressed array.
std::vector<NDArray> densify(const std::vector<NDArray>& arrays);

/// Checks that the parts describe a valid array: with `full_check`, also their values (indptr
/// starts at 0, never decreases and ends at nnz; indices in range and strictly ascending per
/// row). Waits for them; throws a braid::Error naming what is wrong.
void check_format(const NDArray& a, bool full_check = true);

}  // namespace braid::sparse
