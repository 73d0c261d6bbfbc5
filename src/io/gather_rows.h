#pragma once
// Internal to the data iterators: the rows of an array at given sample indices.
#include <cstdint>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::io::detail {

/// Rows `rows` of `a` along axis 0, in that order: shape (rows.size(), a.shape[1:]...). A run of
/// consecutive ascending rows is returned as a view of `a` (no copy); any other order is gathered
/// into a new array (nd::take). Every row must lie in [0, a.shape[0]). A csr matrix gives a csr
/// matrix.
NDArray gather_rows(const NDArray& a, const std::vector<int64_t>& rows);

}  // namespace braid::io::detail
