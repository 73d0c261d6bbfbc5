#include "rows.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include "braid/base/error.h"

namespace braid::kv::ps {

Payload rows_payload(const std::vector<int64_t>& ids, const char* values, size_t row_bytes) {
  const size_t id_bytes = ids.size() * sizeof(int64_t), value_bytes = values ? ids.size() * row_bytes : 0;
  // max_align_t storage: the server reads the ids and values in place when ZeroMQ keeps alignment
  auto bytes = std::make_shared<std::vector<std::max_align_t>>((id_bytes + value_bytes + sizeof(std::max_align_t) - 1) /
                                                               sizeof(std::max_align_t));
  char* out = reinterpret_cast<char*>(bytes->data());
  if (id_bytes) std::memcpy(out, ids.data(), id_bytes);
  if (value_bytes) std::memcpy(out + id_bytes, values, value_bytes);
  return {out, id_bytes + value_bytes, bytes};
}

Rows parse_rows(const Message& m, size_t row_bytes, bool with_values, int64_t first_row, int64_t end_row) {
  const size_t per_row = sizeof(int64_t) + (with_values ? row_bytes : 0);
  BRAID_CHECK(m.payload.size % per_row == 0, "key ", m.head.key, ": a row message of ", m.payload.size,
              " bytes is no whole number of rows of ", per_row, " bytes");
  Rows rows;
  rows.n = static_cast<int64_t>(m.payload.size / per_row);
  BRAID_CHECK(rows.n <= end_row - first_row, "key ", m.head.key, ": ", rows.n, " rows sent to a slice of ",
              end_row - first_row);
  rows.ids = static_cast<const int64_t*>(m.payload.data);
  for (int64_t i = 0; i < rows.n; ++i) {
    const int64_t id = rows.ids[i];
    BRAID_CHECK(id >= first_row && id < end_row && (i == 0 || id > rows.ids[i - 1]), "key ", m.head.key, ": row ", id,
                " (at ", i, ") is not an ascending row of this server's slice, rows [", first_row, ", ", end_row, ")");
  }
  if (with_values) rows.values = static_cast<const char*>(m.payload.data) + rows.n * sizeof(int64_t);
  return rows;
}

}  // namespace braid::kv::ps
