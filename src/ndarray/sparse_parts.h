#pragma once
// Internal: what a compressed NDArray holds instead of a dense chunk, and the one way in to it.
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::detail {

struct SparseParts {
  StorageType stype = StorageType::Default;
  NDArray data;              // csr: (nnz,); row_sparse: (stored rows, shape[1:]...)
  std::vector<NDArray> aux;  // csr: {indptr, indices}; row_sparse: {indices}; int64
};

struct SparseAccess {
  /// A compressed array of logical `shape` over `parts` (checked by the caller).
  static NDArray make(const Shape& shape, SparseParts parts);
  static const SparseParts& parts(const NDArray& a);
  /// Writes `from`'s parts into compressed `dst` (and every copy of its handle).
  static void replace(const NDArray& dst, SparseParts from);
};

}  // namespace braid::detail
