#pragma once
/// How an array keeps its elements (MXNet's stype): densely, or compressed. The numbers are
/// MXNet's (they are written in `.params` files).
///  - RowSparse: the rows of the first axis that are stored (indices, int64, ascending) and their
///    values (data: nnz rows × the other axes); every other row is zero.
///  - CSR (2-d only): compressed sparse rows; indptr (rows + 1 offsets), indices (the column of each
///    stored value, ascending within a row) and data (the values), all of length nnz.
#include <string>

namespace braid {

enum class StorageType : int { Default = 0, RowSparse = 1, CSR = 2 };

/// "default", "row_sparse" or "csr" (MXNet's spellings).
const char* storage_type_name(StorageType stype);
/// Reads MXNet's spelling; anything else is an error listing the three.
StorageType parse_storage_type(const std::string& s);

}  // namespace braid
