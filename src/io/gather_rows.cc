#include "gather_rows.h"

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/indexing.h"

namespace braid::io::detail {

NDArray gather_rows(const NDArray& a, const std::vector<int64_t>& rows) {
  BRAID_CHECK(!rows.empty(), "gather_rows: no rows requested");
  bool consecutive = true;
  for (size_t i = 1; i < rows.size() && consecutive; ++i) consecutive = rows[i] == rows[i - 1] + 1;
  if (consecutive) return a.slice(rows.front(), rows.back() + 1);
  NDArray positions = nd::array(rows, Shape({static_cast<int64_t>(rows.size())}), cpu(), DType::Int64);
  // the rows are in range; a csr matrix takes rows in 'clip' mode only (as MXNet's)
  return nd::take(a, positions.as_in_context(a.ctx()), 0, a.stype() == StorageType::CSR ? "clip" : "raise");
}

}  // namespace braid::io::detail
