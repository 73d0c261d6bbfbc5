#pragma once
// Internal: the payloads of row messages (key_value.h): n row numbers, ascending, then for a push
// the rows' values. Built by workers, checked by servers before they touch a row.
#include <cstdint>
#include <vector>

#include "message.h"

namespace braid::kv::ps {

/// The rows of a received row message, pointing into its payload.
struct Rows {
  const int64_t* ids = nullptr;  // row numbers of the whole value
  int64_t n = 0;
  const char* values = nullptr;  // n rows of row_bytes each (pushes only)
};

/// A row message's payload: `ids`, then `n * row_bytes` bytes of `values` (null for a pull).
Payload rows_payload(const std::vector<int64_t>& ids, const char* values, size_t row_bytes);

/// Reads the payload of `m` as rows of a slice holding rows [first_row, end_row) of
/// `row_bytes` bytes each (`with_values`: a push); throws naming what is malformed: a size that
/// is no whole number of rows, ids out of the slice or not ascending.
Rows parse_rows(const Message& m, size_t row_bytes, bool with_values, int64_t first_row, int64_t end_row);

}  // namespace braid::kv::ps
