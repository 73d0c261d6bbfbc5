#pragma once
/// The one way Braid parses JSON that comes from outside (symbol files, configs, optimizer and
/// checkpoint JSON, training logs): bounded in size (kMaxTextFileBytes) and in nesting depth.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace braid::io {

/// The deepest nesting of objects and arrays accepted. Braid's formats nest at most 5 levels;
/// printing a value (into an error message, say) recurses once per level.
inline constexpr int kMaxJsonDepth = 100;

/// Parses `text`; throws braid::Error naming `what` (a path, "symbol JSON") when it is malformed,
/// longer than kMaxTextFileBytes or nested deeper than kMaxJsonDepth.
nlohmann::json parse_json(std::string_view text, const std::string& what);
/// The JSON file at `path` (a regular file, see read_file), parsed by parse_json.
nlohmann::json read_json_file(const std::string& path);

}  // namespace braid::io
