#pragma once
// Special functions the element-wise ops need and <cmath> lacks: digamma (the derivative of
// lgamma) and the inverse error function. Host and device, float and double.
#include <cmath>

#include "op/math/host_device.h"

namespace braid::op::math {

/// psi(x) = d/dx log|Gamma(x)|: reflection for x < 0.5, the recurrence psi(x) = psi(x + 1) - 1/x
/// up to x >= 6, then the asymptotic series (error below 1e-12 there).
template <class T>
BRAID_HOST_DEVICE T digamma(T x) {
  const double pi = 3.14159265358979323846;
  double v = static_cast<double>(x), shift = 0.0;
  // At the poles, as MXNet's (Cephes' psi): the largest double, which is +inf in float.
  if (v == std::floor(v) && v <= 0.0) {
    if constexpr (sizeof(T) < sizeof(double))
      return static_cast<T>(INFINITY);
    else
      return static_cast<T>(1.7976931348623157e308);
  }
  if (v < 0.5) {
    // psi(1 - x) - psi(x) = pi / tan(pi x)
    shift = -pi / std::tan(pi * v);
    v = 1.0 - v;
  }
  while (v < 6.0) {
    shift -= 1.0 / v;
    v += 1.0;
  }
  const double r = 1.0 / (v * v);
  const double series = r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132)))));
  return static_cast<T>(shift + std::log(v) - 0.5 / v - series);
}

/// erfinv(y) for -1 <= y <= 1 (+-inf at +-1, NaN outside): Winitzki's closed-form estimate,
/// refined by Newton steps on erf(x) - y in double precision.
template <class T>
BRAID_HOST_DEVICE T erfinv(T y) {
  const double v = static_cast<double>(y);
  if (!(v >= -1.0 && v <= 1.0)) return static_cast<T>(NAN);
  if (v == 1.0) return static_cast<T>(INFINITY);
  if (v == -1.0) return static_cast<T>(-INFINITY);
  const double a = 0.147, pi = 3.14159265358979323846;
  const double l = std::log((1.0 - v) * (1.0 + v));
  const double t = 2.0 / (pi * a) + 0.5 * l;
  double x = std::sqrt(std::sqrt(t * t - l / a) - t);
  if (v < 0) x = -x;
  const double two_over_sqrt_pi = 1.12837916709551257390;
  for (int step = 0; step < 3; ++step) {
    const double slope = two_over_sqrt_pi * std::exp(-x * x);
    if (slope == 0.0) break;
    x -= (std::erf(x) - v) / slope;
  }
  return static_cast<T>(x);
}

}  // namespace braid::op::math
