#pragma once
// Internal: Python spellings for the reprs of Gluon blocks. MXNet formats a block's arguments
// with Python's repr, so Braid prints floats as repr(float) does ("1e-05", "0.9", "1.0"),
// booleans as "True"/"False" and absent values as "None". Tuples are Shape::str() ("(5, 5)").
#include <optional>
#include <string>

namespace braid::gluon::detail {

std::string py_float(double v);
std::string py_float(std::optional<double> v);
inline std::string py_bool(bool b) { return b ? "True" : "False"; }

}  // namespace braid::gluon::detail
