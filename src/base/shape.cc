#include "braid/base/shape.h"

#include "braid/base/error.h"
#include "braid/base/np_shape.h"

namespace braid {

bool Shape::fully_known() const {
  if (!known_) return false;
  const int64_t least_known = np_shape() ? 0 : 1;  // dim_known, with the switch read once
  for (auto d : dims_)
    if (d < least_known) return false;
  return true;
}

int64_t Shape::size() const { return prod(0, ndim()); }

int64_t Shape::prod(int begin, int end) const {
  int64_t n = 1;
  for (int i = begin; i < end; ++i)
    if (dims_[static_cast<size_t>(i)] == 0) return 0;  // before any product could overflow
  for (int i = begin; i < end; ++i)
    BRAID_CHECK(!__builtin_mul_overflow(n, dims_[static_cast<size_t>(i)], &n), "shape ", str(),
                " has more elements than int64 can count");
  return n;
}

int Shape::axis(int a, const char* what) const {
  int n = ndim();
  BRAID_CHECK(a >= -n && a < n, what, " ", a, " is out of range for shape ", str(), " (valid: ", -n, " to ", n - 1,
              ")");
  return a < 0 ? a + n : a;
}

std::string Shape::str() const {
  if (!known_) return "?";
  std::string s = "(";
  for (size_t i = 0; i < dims_.size(); ++i) s += cat(i ? ", " : "", dims_[i]);
  if (dims_.size() == 1) s += ",";
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.str(); }

}  // namespace braid
