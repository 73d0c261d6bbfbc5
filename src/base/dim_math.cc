#include "braid/base/dim_math.h"

#include "braid/base/error.h"

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
  for (int i = 0; i < s.ndim(); ++i) BRAID_CHECK(s[i] >= 0, what, " has shape ", s, ", with a negative dimension");
  try {
    s.size();
  } catch (const Error& e) {
    throw Error(cat(what, ": ", e.what()));
  }
}

}  // namespace braid
