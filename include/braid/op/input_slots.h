#pragma once
/// Placing the inputs of an operator call, MXNet's rules for both nd.<Op>(...) and sym.<Op>(...):
/// inputs given by argument name go to that argument, the others fill the free slots in order.
#include <string>
#include <vector>

namespace braid::op {

/// `slots`: the op's arguments then aux states; `names[i]`: the argument name of input i, or
/// empty for "the next positional slot". Returns the slot of each input; throws naming `op` and
/// `where` (" (node fc1)", or empty) for an unknown name, a slot given twice or too many inputs.
std::vector<size_t> input_slots(const std::string& op, const std::vector<std::string>& slots,
                                const std::vector<std::string>& names, const std::string& where = "");

}  // namespace braid::op
