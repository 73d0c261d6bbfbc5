#pragma once
/// Reading configuration from the environment (BRAID_* first, then MXNet's MXNET_* spelling).
#include <initializer_list>
#include <optional>
#include <string>

namespace braid {

/// Value of the first variable in `names` that is set.
std::optional<std::string> env_str(std::initializer_list<const char*> names);
/// Integer value of the first set variable in `names`, or `fallback`; throws on a non-integer.
long long env_int(std::initializer_list<const char*> names, long long fallback);

}  // namespace braid
