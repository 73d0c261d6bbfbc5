#include "py_repr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace braid::gluon::detail {

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The fewest digits that read back the same value, placed as Python does: positional notation
  // for decimal exponents in [-4, 16), otherwise scientific with at least two exponent digits
  // ("1e-05", "1.5e+16"), which is also C's %e spelling.
  char sci[40];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(sci, sizeof sci, "%.*e", digits - 1, v);
    if (std::strtod(sci, nullptr) == v) break;
  }
  std::snprintf(sci, sizeof sci, "%.*e", digits - 1, v);
  const int exp10 = std::atoi(std::strchr(sci, 'e') + 1);
  if (exp10 < -4 || exp10 >= 16) return sci;
  char fixed[64];
  std::snprintf(fixed, sizeof fixed, "%.*f", std::max(0, digits - 1 - exp10), v);
  std::string s = fixed;
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string py_float(std::optional<double> v) { return v ? py_float(*v) : "None"; }

}  // namespace braid::gluon::detail
