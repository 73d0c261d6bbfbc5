#include "serving/model_names.h"

#include <algorithm>

#include "braid/serving/protocol.h"

namespace braid::serving {

void check_model_name(const std::string& name) {
  const bool safe = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
  if (name.empty() || name.size() > kMaxModelNameLength || !safe || name[0] == '.')
    throw RequestError(
        400, cat("a model name has 1 to ", kMaxModelNameLength,
                 " characters: letters, digits, '_', '-' and '.', not first; got ",
                 name.size() > 64 ? "a name of " + std::to_string(name.size()) + " characters" : "'" + name + "'"));
}

std::optional<int64_t> version_number(const std::string& version) {
  if (version.empty() || version.size() > 18 ||
      !std::all_of(version.begin(), version.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoll(version);
}

}  // namespace braid::serving
