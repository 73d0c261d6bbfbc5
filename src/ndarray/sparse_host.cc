#include "sparse_host.h"

#include "braid/ndarray/creation.h"

namespace braid::detail {

std::vector<int64_t> host_int64(const NDArray& a) { return a.to_vector<int64_t>(); }

NDArray int64_array(const std::vector<int64_t>& values, Context ctx) {
  NDArray host = nd::array(values, Shape{static_cast<int64_t>(values.size())}, cpu(), DType::Int64);
  return host.as_in_context(ctx);
}

}  // namespace braid::detail
