#pragma once
// Internal: what a model name and a version may be, in a request's path and in the repository.
// Names become folder names and are echoed in answers and metrics, so only a safe set passes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace braid::serving {

constexpr size_t kMaxModelNameLength = 256;

/// Throws RequestError 400 unless `name` has 1 to 256 letters, digits, '_', '-' or '.', and does
/// not start with '.'.
void check_model_name(const std::string& name);

/// A version folder's or a request's version: 1 to 18 digits; nothing otherwise.
std::optional<int64_t> version_number(const std::string& version);

}  // namespace braid::serving
