#include "braid/ndarray/elemwise.h"

#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"

namespace braid {
namespace {

NDArray binary(const char* same_shape_op, const char* broadcast_op, const NDArray& a, const NDArray& b) {
  return nd::invoke1(a.shape() == b.shape() ? same_shape_op : broadcast_op, {a, b});
}

NDArray scalar_op(const char* op, const NDArray& a, double s) {
  return nd::invoke1(op, {a}, {{"scalar", op::format_number(s)}});
}

}  // namespace

namespace nd {

#define BRAID_UNARY(NAME) \
  NDArray NAME(const NDArray& x) { return invoke1(#NAME, {x}); }
BRAID_UNARY(exp)
BRAID_UNARY(log) BRAID_UNARY(log1p) BRAID_UNARY(expm1) BRAID_UNARY(sqrt) BRAID_UNARY(rsqrt) BRAID_UNARY(square)
    BRAID_UNARY(reciprocal) BRAID_UNARY(negative) BRAID_UNARY(abs) BRAID_UNARY(sign) BRAID_UNARY(tanh)
        BRAID_UNARY(sigmoid) BRAID_UNARY(relu) BRAID_UNARY(softrelu) BRAID_UNARY(sin) BRAID_UNARY(cos)
            BRAID_UNARY(floor) BRAID_UNARY(ceil) BRAID_UNARY(round) BRAID_UNARY(rint) BRAID_UNARY(trunc)
#undef BRAID_UNARY

                NDArray clip(const NDArray& x, double a_min, double a_max) {
  return invoke1("clip", {x}, {{"a_min", op::format_number(a_min)}, {"a_max", op::format_number(a_max)}});
}
NDArray power(const NDArray& base, const NDArray& exponent) {
  return binary("_power", "broadcast_power", base, exponent);
}
NDArray power(const NDArray& base, double exponent) { return scalar_op("_power_scalar", base, exponent); }
NDArray power(double base, const NDArray& exponent) { return scalar_op("_rpower_scalar", exponent, base); }
NDArray maximum(const NDArray& a, const NDArray& b) { return binary("_maximum", "broadcast_maximum", a, b); }
NDArray maximum(const NDArray& a, double b) { return scalar_op("_maximum_scalar", a, b); }
NDArray minimum(const NDArray& a, const NDArray& b) { return binary("_minimum", "broadcast_minimum", a, b); }
NDArray minimum(const NDArray& a, double b) { return scalar_op("_minimum_scalar", a, b); }
NDArray where(const NDArray& condition, const NDArray& x, const NDArray& y) {
  return invoke1("where", {condition, x, y});
}
NDArray broadcast_to(const NDArray& x, const Shape& shape) {
  return invoke1("broadcast_to", {x}, {{"shape", shape.str()}});
}

}  // namespace nd

// `reversed` is the scalar op computing f(s, x), for `s OP x`.
#define BRAID_BINARY_OPERATOR(OP, SAME, BROADCAST, SCALAR, REVERSED)                                \
  NDArray operator OP(const NDArray& a, const NDArray& b) { return binary(SAME, BROADCAST, a, b); } \
  NDArray operator OP(const NDArray& a, double b) { return scalar_op(SCALAR, a, b); }               \
  NDArray operator OP(double a, const NDArray& b) { return scalar_op(REVERSED, b, a); }
BRAID_BINARY_OPERATOR(+, "elemwise_add", "broadcast_add", "_plus_scalar", "_plus_scalar")
BRAID_BINARY_OPERATOR(-, "elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar")
BRAID_BINARY_OPERATOR(*, "elemwise_mul", "broadcast_mul", "_mul_scalar", "_mul_scalar")
BRAID_BINARY_OPERATOR(/, "elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar")
BRAID_BINARY_OPERATOR(==, "_equal", "broadcast_equal", "_equal_scalar", "_equal_scalar")
BRAID_BINARY_OPERATOR(!=, "_not_equal", "broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar")
BRAID_BINARY_OPERATOR(<, "_lesser", "broadcast_lesser", "_lesser_scalar", "_greater_scalar")
BRAID_BINARY_OPERATOR(<=, "_lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar")
BRAID_BINARY_OPERATOR(>, "_greater", "broadcast_greater", "_greater_scalar", "_lesser_scalar")
BRAID_BINARY_OPERATOR(>=, "_greater_equal", "broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar")
#undef BRAID_BINARY_OPERATOR

NDArray operator-(const NDArray& a) { return nd::invoke1("negative", {a}); }

}  // namespace braid
