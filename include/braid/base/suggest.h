#pragma once
/// "Did you mean" hints for error messages about unknown names (operators, optimizers, options).
#include <string>
#include <vector>

namespace braid {

/// Case-insensitive edit distance between two names.
size_t edit_distance(const std::string& a, const std::string& b);

/// "; did you mean X, Y" listing up to three `candidates` within edit distance 3 of `name`
/// (closest first), or "" when none is close.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

/// "a, b, c" (or `if_empty` for no names), for listing the valid choices.
std::string comma_list(const std::vector<std::string>& names, const std::string& if_empty = "none");

}  // namespace braid
