#include "braid/base/dim_math.h"

#include "braid/base/error.h"

namespace braid {

int64_t mul_dims(int64_t a, int64_t b) {
  int64_t r;
  BRAID_CHECK(!__builtin_mul_overflow(a, b, &r), "the dimension arithmetic ", a, " x ", b, " overflows int64");
  return r;
}

int64_t add_dims(int64_t a, int64_t b) {
  int64_t r;
  BRAID_CHECK(!__builtin_add_overflow(a, b, &r), "the dimension arithmetic ", a, " + ", b, " overflows int64");
  return r;
}

void check_shape(const Shape& s, const std::string& what) {
  for (int i = 0; i < s.ndim(); ++i) BRAID_CHECK(s[i] >= 0, what, " has shape ", s, ", with a negative dimension");
  try {
    s.size();
  } catch (const Error& e) {
    throw Error(cat(what, ": ", e.what()));
  }
}

}  // namespace braid
