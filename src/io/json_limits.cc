#include "braid/io/json_limits.h"

#include "braid/base/error.h"
#include "braid/io/file.h"

namespace braid::io {
namespace {

// Whether arrays and objects nest deeper than `limit` in `text`, counting brackets outside
// strings: for any prefix the parser accepts, that is the depth of what it builds. A scan before
// parsing, since nlohmann's callback parser slows to quadratic time on long arrays of objects.
bool nested_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& what) {
  BRAID_CHECK(text.size() <= kMaxTextFileBytes, what, ": ", text.size(), " bytes of JSON, over the limit of ",
              kMaxTextFileBytes, " bytes");
  BRAID_CHECK(!nested_deeper_than(text, kMaxJsonDepth), what, ": JSON nested deeper than the limit of ", kMaxJsonDepth,
              " levels of objects and arrays");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(cat(what, ": malformed JSON: ", e.what()));
  }
}

nlohmann::json read_json_file(const std::string& path) { return parse_json(read_file(path, kMaxTextFileBytes), path); }

}  // namespace braid::io
