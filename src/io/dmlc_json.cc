#include "braid/io/dmlc_json.h"

#include <algorithm>

namespace braid::io {
namespace {

// dmlc-core writes containers of plain values (numbers, fixed-size number tuples) on one line up
// to ten items, and containers of objects always over several lines.
bool spans_lines(const nlohmann::ordered_json& v) {
  if (v.is_object()) return v.size() > 1;
  return v.size() > 10 || std::any_of(v.begin(), v.end(), [](const auto& e) { return e.is_object(); });
}

// Only these characters are escaped by dmlc-core's WriteString.
void write_string(const std::string& s, std::string& out) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        out += c;
    }
  }
  out += '"';
}

void write(const nlohmann::ordered_json& v, int depth, std::string& out) {
  if (v.is_string()) return write_string(v.get<std::string>(), out);
  if (!v.is_object() && !v.is_array()) {
    out += v.dump();
    return;
  }
  const bool multi = spans_lines(v);
  const auto separator = [&](int level) {
    if (multi) out += '\n' + std::string(static_cast<size_t>(2 * level), ' ');
  };
  out += v.is_object() ? '{' : '[';
  size_t count = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++count) {
    if (count != 0) out += ", ";
    separator(depth + 1);
    if (v.is_object()) {
      write_string(it.key(), out);
      out += ": ";
    }
    write(*it, depth + 1, out);
  }
  if (count != 0) separator(depth);
  out += v.is_object() ? '}' : ']';
}

}  // namespace

std::string dump_dmlc_json(const nlohmann::ordered_json& value) {
  std::string out;
  write(value, 0, out);
  return out;
}

}  // namespace braid::io
