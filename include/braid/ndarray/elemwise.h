#pragma once
/// Elementwise math on NDArrays: unary functions, arithmetic and comparisons with NumPy
/// broadcasting and with scalars (MXNet's nd.exp, a + b, a > 0.5, nd.where, ...).
#include "braid/ndarray/ndarray.h"

namespace braid::nd {

#define BRAID_UNARY(NAME) NDArray NAME(const NDArray& x);
BRAID_UNARY(exp)
BRAID_UNARY(log) BRAID_UNARY(log1p) BRAID_UNARY(expm1) BRAID_UNARY(sqrt) BRAID_UNARY(rsqrt) BRAID_UNARY(square)
    BRAID_UNARY(reciprocal) BRAID_UNARY(negative) BRAID_UNARY(abs) BRAID_UNARY(sign) BRAID_UNARY(tanh)
        BRAID_UNARY(sigmoid) BRAID_UNARY(relu) BRAID_UNARY(softrelu) BRAID_UNARY(sin) BRAID_UNARY(cos)
            BRAID_UNARY(floor) BRAID_UNARY(ceil) BRAID_UNARY(round) BRAID_UNARY(rint) BRAID_UNARY(trunc)
#undef BRAID_UNARY

                NDArray clip(const NDArray& x, double a_min, double a_max);
NDArray power(const NDArray& base, const NDArray& exponent);  // broadcasting
NDArray power(const NDArray& base, double exponent);
NDArray power(double base, const NDArray& exponent);
NDArray maximum(const NDArray& a, const NDArray& b);
NDArray maximum(const NDArray& a, double b);
NDArray minimum(const NDArray& a, const NDArray& b);
NDArray minimum(const NDArray& a, double b);
/// x where condition != 0, else y.
NDArray where(const NDArray& condition, const NDArray& x, const NDArray& y);
NDArray broadcast_to(const NDArray& x, const Shape& shape);

}  // namespace braid::nd

namespace braid {

// Arithmetic broadcasts like NumPy (MXNet's NDArray operators); comparisons give 1/0 arrays.
#define BRAID_BINARY_OPERATOR(OP)                          \
  NDArray operator OP(const NDArray& a, const NDArray& b); \
  NDArray operator OP(const NDArray& a, double b);         \
  NDArray operator OP(double a, const NDArray& b);
BRAID_BINARY_OPERATOR(+)
BRAID_BINARY_OPERATOR(-)
BRAID_BINARY_OPERATOR(*)
BRAID_BINARY_OPERATOR(/)
BRAID_BINARY_OPERATOR(==)
BRAID_BINARY_OPERATOR(!=)
BRAID_BINARY_OPERATOR(<)
BRAID_BINARY_OPERATOR(<=)
BRAID_BINARY_OPERATOR(>)
BRAID_BINARY_OPERATOR(>=)
#undef BRAID_BINARY_OPERATOR
NDArray operator-(const NDArray& a);

}  // namespace braid
