#include "sparse_host.h"

#include <algorithm>

#include "braid/ndarray/creation.h"

namespace braid::detail {

std::vector<int64_t> host_int64(const NDArray& a) { return a.to_vector<int64_t>(); }

std::vector<int64_t> positions_in(const std::vector<int64_t>& rows, const std::vector<int64_t>& stored) {
  std::vector<int64_t> pos;
  pos.reserve(rows.size());
  for (int64_t r : rows) {
    auto it = std::lower_bound(stored.begin(), stored.end(), r);
    pos.push_back(it != stored.end() && *it == r ? it - stored.begin() : -1);
  }
  return pos;
}

NDArray int64_array(const std::vector<int64_t>& values, Context ctx) {
  NDArray host = nd::array(values, Shape{static_cast<int64_t>(values.size())}, cpu(), DType::Int64);
  return host.as_in_context(ctx);
}

}  // namespace braid::detail
