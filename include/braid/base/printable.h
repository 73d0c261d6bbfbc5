#pragma once
/// Text from outside (a peer's id, a request's field, a message body) made safe for one log line:
/// control characters and bytes outside printable ASCII are written as \xNN, and long text is cut.
#include <cstddef>
#include <string>
#include <string_view>

namespace braid {

/// At most `max_chars` characters of `text` (then "..."), with every byte that is not printable
/// ASCII escaped, so a newline in a peer's text cannot start a forged log line.
std::string printable(std::string_view text, size_t max_chars = 200);

}  // namespace braid
