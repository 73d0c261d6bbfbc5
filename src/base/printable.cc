#include "braid/base/printable.h"

namespace braid {

std::string printable(std::string_view text, size_t max_chars) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  const size_t shown = text.size() <= max_chars ? text.size() : max_chars;
  out.reserve(shown + 3);
  for (size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  if (shown < text.size()) out += "...";
  return out;
}

}  // namespace braid
