#include "braid/base/dim_math.h"

#include "braid/base/error.h"
#include "braid/base/np_shape.h"

namespace braid {

namespace {

[[noreturn]] void overflow(int64_t a, const char* sign, int64_t b, std::string_view op) {
  throw Error(
      cat(op.empty() ? "" : cat("operator ", op, ": "), "the dimension arithmetic ", a, sign, b, " overflows int64"));
}

}  // namespace

int64_t mul_dims(int64_t a, int64_t b, std::string_view op) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow(a, " x ", b, op);
  return r;
}

int64_t add_dims(int64_t a, int64_t b, std::string_view op) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow(a, " + ", b, op);
  return r;
}

void check_shape(const Shape& s, const std::string& what) {
  bool unknown = false;  // -1 under NumPy shape semantics: not known yet
  for (int i = 0; i < s.ndim(); ++i) {
    const bool unknown_here = s[i] == -1 && np_shape();
    BRAID_CHECK(s[i] >= 0 || unknown_here, what, " has shape ", s, ", with a negative dimension");
    unknown = unknown || unknown_here;
  }
  if (unknown) return;
  try {
    s.size();
  } catch (const Error& e) {
    throw Error(cat(what, ": ", e.what()));
  }
}

}  // namespace braid
