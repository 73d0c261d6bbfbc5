#pragma once
// Internal: LeakyReLU's attributes, how prelu's gamma maps onto the data, and the element-wise
// activations with a fixed shape (leaky, elu, selu, gelu) as functors — y = f(x), dy/dx =
// df(x, y) — shared by its CPU (leaky_relu.cc) and GPU (leaky_relu.cu) kernels.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "braid/base/shape.h"
#include "op/common/axis_split.h"
#include "op/math/host_device.h"

namespace braid::op::detail {

enum Act : size_t { kLeaky, kPReLU, kRReLU, kELU, kSELU, kGELU };
inline const std::vector<std::string> kActTypes = {"leaky", "prelu", "rrelu", "elu", "selu", "gelu"};

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;

struct LeakyParam {
  size_t act = kLeaky;
  double slope = 0.25, lower = 0.125, upper = 0.334;
};

// How prelu's gamma maps onto the data: one value, one per channel (axis 1), or one per element.
/// prelu's data as (outer, gamma elements, inner): element i takes gamma[i / inner % n]. Gamma
/// is one slope, one per element, or lines up with the data's axes 0 and 1 (its last axis with
/// axis 1); throws for a gamma that fits none.
AxisSplit gamma_split(const Shape& data, const Shape& gamma);

template <class T>
struct LeakyFn {
  T slope;
  BRAID_HOST_DEVICE T f(T x) const { return x > T(0) ? x : slope * x; }
  BRAID_HOST_DEVICE T df(T x, T) const { return x > T(0) ? T(1) : slope; }
};
template <class T>
struct EluFn {
  T slope;
  BRAID_HOST_DEVICE T f(T x) const { return x > T(0) ? x : slope * std::expm1(x); }
  // slope * exp(x) = y + slope below 0
  BRAID_HOST_DEVICE T df(T x, T y) const { return x > T(0) ? T(1) : y + slope; }
};
template <class T>
struct SeluFn {
  BRAID_HOST_DEVICE T f(T x) const { return T(kSeluLambda) * (x > T(0) ? x : T(kSeluAlpha) * std::expm1(x)); }
  // lambda * alpha * exp(x) = y + lambda * alpha below 0
  BRAID_HOST_DEVICE T df(T x, T y) const { return x > T(0) ? T(kSeluLambda) : y + T(kSeluLambda * kSeluAlpha); }
};
template <class T>
struct GeluFn {  // x * Phi(x), the erf form
  static constexpr double kInvSqrt2 = 1 / std::numbers::sqrt2;
  BRAID_HOST_DEVICE T f(T x) const { return T(0.5) * x * (T(1) + std::erf(x * T(kInvSqrt2))); }
  BRAID_HOST_DEVICE T df(T x, T) const {
    const T pdf = std::exp(T(-0.5) * x * x) * T(std::numbers::inv_sqrtpi * kInvSqrt2);  // N(0,1) density
    return T(0.5) * (T(1) + std::erf(x * T(kInvSqrt2))) + x * pdf;
  }
};

}  // namespace braid::op::detail
