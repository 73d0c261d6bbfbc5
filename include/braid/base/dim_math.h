#pragma once
/// Arithmetic on dimensions and element counts that never overflows silently. Shapes are
/// computed from attributes a model file may set to anything (num_hidden, pads, reshape codes,
/// repeats), so every product and sum on the way to an allocation is checked.
#include <cstdint>
#include <string>
#include <string_view>

#include "braid/base/shape.h"

namespace braid {

/// a * b and a + b; throw braid::Error, naming operator `op` when given, when the result does not
/// fit in int64.
int64_t mul_dims(int64_t a, int64_t b, std::string_view op = {});
int64_t add_dims(int64_t a, int64_t b, std::string_view op = {});

/// Throws braid::Error naming `what` when known shape `s` has a negative dimension or more
/// elements than int64 can count.
void check_shape(const Shape& s, const std::string& what);

}  // namespace braid
