#include "braid/ndarray/creation.h"

#include <cstring>

#include "braid/base/convert.h"
#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"

namespace braid::nd {
namespace {

op::AttrMap init_attrs(const Shape& shape, Context ctx, DType dtype) {
  return {{"shape", shape.str()}, {"ctx", ctx.str()}, {"dtype", dtype_name(dtype)}};
}

}  // namespace

NDArray empty(const Shape& shape, Context ctx, DType dtype) { return NDArray(shape, ctx, dtype); }

NDArray zeros(const Shape& shape, Context ctx, DType dtype) {
  return invoke1("_zeros", {}, init_attrs(shape, ctx, dtype));
}

NDArray ones(const Shape& shape, Context ctx, DType dtype) {
  return invoke1("_ones", {}, init_attrs(shape, ctx, dtype));
}

NDArray full(const Shape& shape, double value, Context ctx, DType dtype) {
  auto a = init_attrs(shape, ctx, dtype);
  a["value"] = op::format_number(value);
  return invoke1("_full", {}, a);
}

NDArray arange(double start, double stop, double step, int64_t repeat, Context ctx, DType dtype) {
  return invoke1("_arange", {},
                 {{"start", op::format_number(start)},
                  {"stop", op::format_number(stop)},
                  {"step", op::format_number(step)},
                  {"repeat", cat(repeat)},
                  {"ctx", ctx.str()},
                  {"dtype", dtype_name(dtype)}});
}

template <class T>
NDArray array(const std::vector<T>& values, const Shape& shape, Context ctx, DType dtype) {
  Shape s = shape.known() ? shape : Shape({static_cast<int64_t>(values.size())});
  BRAID_CHECK(s.size() == static_cast<int64_t>(values.size()), "nd::array: ", values.size(),
              " values do not fill shape ", s);
  NDArray out(s, ctx, dtype);
  // The array is new and no operation refers to it yet, so it is filled directly, not on the engine.
  convert_elements(values.data(), DTypeOf<T>::value, out.raw_data(), dtype, s.size());
  return out;
}

template NDArray array<float>(const std::vector<float>&, const Shape&, Context, DType);
template NDArray array<double>(const std::vector<double>&, const Shape&, Context, DType);
template NDArray array<int32_t>(const std::vector<int32_t>&, const Shape&, Context, DType);
template NDArray array<int64_t>(const std::vector<int64_t>&, const Shape&, Context, DType);
template NDArray array<uint8_t>(const std::vector<uint8_t>&, const Shape&, Context, DType);

}  // namespace braid::nd
