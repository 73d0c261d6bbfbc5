#include "serving/request_framer.h"

#include <algorithm>
#include <cctype>

#include "braid/base/error.h"

namespace braid::serving {
namespace {

constexpr size_t kMaxChunkLine = 4096;  // a chunk's size line, or a trailer line

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A client's text quoted in an error, cut short: errors echo what was wrong, not all of it.
std::string quoted(std::string_view s) {
  constexpr size_t kShown = 64;
  return "'" + std::string(s.substr(0, kShown)) + (s.size() > kShown ? "...'" : "'");
}

std::optional<uint64_t> parse_hex(std::string_view s) {
  if (s.empty() || s.size() > 15) return std::nullopt;
  uint64_t n = 0;
  for (char c : s) {
    const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                              : -1;
    if (d < 0) return std::nullopt;
    n = n * 16 + static_cast<uint64_t>(d);
  }
  return n;
}

}  // namespace

std::optional<uint64_t> parse_byte_count(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;  // 18 digits fit 63 bits
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

Framing RequestFramer::refuse(int status, std::string error) {
  framing_.state = Framing::State::Refused;
  framing_.status = status;
  framing_.error = std::move(error);
  return framing_;
}

Framing RequestFramer::update(std::string& bytes) {
  if (framing_.state != Framing::State::Incomplete) return framing_;
  if (!framing_.headers_complete) {
    const size_t blank = bytes.find("\r\n\r\n", searched_ < 3 ? 0 : searched_ - 3);
    const size_t header_bytes = blank == std::string::npos ? bytes.size() : blank + 4;
    if (header_bytes > limits_.max_header_bytes)
      return refuse(431, cat("the request's line and headers are over the server's limit of ", limits_.max_header_bytes,
                             " bytes"));
    searched_ = bytes.size();
    if (blank == std::string::npos) return framing_;
    if (headers_done(bytes, header_bytes).state != Framing::State::Incomplete) return framing_;
  }
  if (chunked_) return scan_chunks(bytes);
  if (bytes.size() - body_at_ >= body_bytes_) {
    framing_.state = Framing::State::Complete;
    framing_.end = body_at_ + body_bytes_;
  }
  return framing_;
}

// The headers' Content-Length, Transfer-Encoding and Expect: how the body is framed. Ambiguous
// framing (two lengths, a length and chunks) is refused rather than guessed at.
Framing RequestFramer::headers_done(std::string& bytes, size_t header_end) {
  std::optional<uint64_t> length;
  bool chunked = false;
  size_t expect_at = std::string::npos, expect_bytes = 0;
  for (size_t line = bytes.find("\r\n") + 2; line + 2 < header_end;) {
    const size_t eol = bytes.find("\r\n", line);
    const std::string_view text(bytes.data() + line, eol - line);
    const size_t colon = text.find(':');
    const std::string_view name = text.substr(0, colon), value = trimmed(text.substr(std::min(colon + 1, text.size())));
    if (colon == std::string_view::npos) {
      // not a header: the HTTP parser refuses the request with 400
    } else if (same_name(name, "Content-Length")) {
      const auto n = parse_byte_count(value);
      if (!n) return refuse(400, cat("Content-Length ", quoted(value), " is not a byte count"));
      if (length && *length != *n) return refuse(400, "the request has two Content-Length headers that differ");
      length = n;
    } else if (same_name(name, "Transfer-Encoding")) {
      if (!same_name(value, "chunked"))
        return refuse(400, cat("Transfer-Encoding ", quoted(value),
                               " is not supported; send the body with Content-Length, or chunked"));
      chunked = true;
    } else if (same_name(name, "Expect") && same_name(value, "100-continue")) {
      expect_at = line;
      expect_bytes = eol + 2 - line;
    }
    line = eol + 2;
  }
  if (length && chunked) return refuse(400, "the request has both Content-Length and Transfer-Encoding; send one");
  if (length && *length > limits_.max_body_bytes)
    return refuse(413, cat("the request body of ", *length, " bytes is over the server's limit of ",
                           limits_.max_body_bytes, " bytes (braid serve --max-body-mb)"));
  if (expect_at != std::string::npos) {
    bytes.erase(expect_at, expect_bytes);
    header_end -= expect_bytes;
    framing_.continue_wanted = true;
  }
  framing_.headers_complete = true;
  chunked_ = chunked;
  body_at_ = chunk_at_ = header_end;
  body_bytes_ = length.value_or(0);
  return framing_;
}

// Chunks: a hex size line (extensions after ';' ignored), the data, CRLF; a last chunk of size 0,
// then trailer lines up to a blank one. The body's bytes as sent (its framing counted) are held
// to the body limit, so a flood of tiny chunks is bounded too.
Framing RequestFramer::scan_chunks(std::string_view bytes) {
  for (;;) {
    const size_t eol = bytes.find("\r\n", chunk_at_);
    const size_t line_end = eol == std::string_view::npos ? bytes.size() : eol;
    if (line_end - chunk_at_ > kMaxChunkLine)
      return refuse(400, cat("a line of the chunked body is over ", kMaxChunkLine, " bytes"));
    if (line_end - body_at_ > limits_.max_body_bytes)
      return refuse(413, cat("the chunked request body is over the server's limit of ", limits_.max_body_bytes,
                             " bytes (braid serve --max-body-mb)"));
    if (eol == std::string_view::npos) return framing_;
    const std::string_view line = bytes.substr(chunk_at_, eol - chunk_at_);
    if (trailers_) {
      chunk_at_ = eol + 2;
      if (!line.empty()) continue;
      framing_.state = Framing::State::Complete;
      framing_.end = chunk_at_;
      return framing_;
    }
    const auto size = parse_hex(trimmed(line.substr(0, line.find(';'))));
    if (!size) return refuse(400, cat("the chunked body has a malformed chunk size line ", quoted(line)));
    if (*size == 0) {
      trailers_ = true;
      chunk_at_ = eol + 2;
      continue;
    }
    if (*size > limits_.max_body_bytes)
      return refuse(413, cat("the chunked request body is over the server's limit of ", limits_.max_body_bytes,
                             " bytes (braid serve --max-body-mb)"));
    const size_t next = eol + 2 + *size + 2;
    if (bytes.size() < next) return framing_;
    if (bytes.substr(next - 2, 2) != "\r\n")
      return refuse(400, "a chunk of the chunked body is longer than its size line says");
    chunk_at_ = next;
  }
}

}  // namespace braid::serving
