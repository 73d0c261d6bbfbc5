#include "braid/ndarray/random.h"

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"
#include "imperative/random_state.h"

namespace braid::nd {

void seed(uint64_t seed) { imperative::reseed(seed); }
void seed(uint64_t seed, Context ctx) { imperative::reseed(seed, ctx); }

namespace {
op::AttrMap sample_attrs(const Shape& shape, Context ctx, DType dtype) {
  return {{"shape", shape.str()}, {"ctx", ctx.str()}, {"dtype", dtype_name(dtype)}};
}
}  // namespace

NDArray random_uniform(double low, double high, const Shape& shape, Context ctx, DType dtype) {
  auto a = sample_attrs(shape, ctx, dtype);
  a["low"] = op::format_number(low);
  a["high"] = op::format_number(high);
  return invoke1("_random_uniform", {}, a);
}

NDArray random_normal(double loc, double scale, const Shape& shape, Context ctx, DType dtype) {
  auto a = sample_attrs(shape, ctx, dtype);
  a["loc"] = op::format_number(loc);
  a["scale"] = op::format_number(scale);
  return invoke1("_random_normal", {}, a);
}

NDArray random_randint(int64_t low, int64_t high, const Shape& shape, Context ctx, DType dtype) {
  auto a = sample_attrs(shape, ctx, dtype);
  a["low"] = op::format_number(low);
  a["high"] = op::format_number(high);
  return invoke1("_random_randint", {}, a);
}

}  // namespace braid::nd
