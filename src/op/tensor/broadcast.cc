#include "broadcast.h"

#include <algorithm>

#include "braid/base/error.h"

namespace braid::op::detail {

Shape broadcast_shapes(const std::string& op, const Shape& a, const Shape& b) {
  int n = std::max(a.ndim(), b.ndim());
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    int ia = a.ndim() - n + i, ib = b.ndim() - n + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    BRAID_CHECK(da == db || da == 1 || db == 1, "operator ", op, ": shapes ", a, " and ", b,
                " cannot be broadcast together (dimension ", i, ": ", da, " vs ", db, ")");
    out[static_cast<size_t>(i)] = da == 1 ? db : da;
  }
  return Shape(out);
}

namespace {
std::vector<int64_t> strides_for(const std::vector<int64_t>& out, const Shape& s) {
  size_t n = out.size();
  std::vector<int64_t> st(n, 0);
  int64_t stride = 1;
  for (int i = s.ndim() - 1; i >= 0; --i) {
    size_t o = n - static_cast<size_t>(s.ndim() - i);
    st[o] = s[i] == 1 ? 0 : stride;
    stride *= s[i];
  }
  return st;
}
}  // namespace

BroadcastWalker::BroadcastWalker(const Shape& out, const Shape& a, const Shape& b)
    : out_(out.dims()), sa_(strides_for(out_, a)), sb_(strides_for(out_, b)), total_(out.size()) {}

}  // namespace braid::op::detail
