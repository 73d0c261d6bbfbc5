#pragma once
// Internal: where an HTTP/1.1 request ends in the bytes a connection has received so far. The
// server reads a whole request (headers and body) before a thread takes it, so that a slow
// client holds no thread; this finds that end, incrementally as bytes arrive, and refuses what
// is malformed or over the limits before the body is read.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace braid::serving {

/// A decimal byte count as HTTP headers carry it (digits only, no sign, no spaces, fits 63 bits),
/// or nothing.
std::optional<uint64_t> parse_byte_count(std::string_view text);

struct FramingLimits {
  size_t max_header_bytes = 64 << 10;  // request line, headers and chunked trailers
  size_t max_body_bytes = size_t{64} << 20;
};

struct Framing {
  enum class State { Incomplete, Complete, Refused };
  State state = State::Incomplete;
  bool headers_complete = false;
  size_t end = 0;                // Complete: the request's bytes are [0, end)
  bool continue_wanted = false;  // once the headers are complete: the client waits for "100 Continue"
  int status = 0;                // Refused: the HTTP status to answer
  std::string error;             // Refused: what was wrong
};

/// Finds one request's end. `update` is called with the connection's buffer each time it grew
/// (same buffer, bytes only appended); it keeps its place so that a body is scanned once.
class RequestFramer {
 public:
  explicit RequestFramer(FramingLimits limits) : limits_(limits) {}
  /// May remove an "Expect: 100-continue" header from `bytes` (the caller answers it, since it
  /// is the one that waits for the body), reporting it in `continue_wanted`.
  Framing update(std::string& bytes);

 private:
  Framing headers_done(std::string& bytes, size_t header_end);
  Framing scan_chunks(std::string_view bytes);
  Framing refuse(int status, std::string error);

  FramingLimits limits_;
  Framing framing_;
  size_t searched_ = 0;  // the blank line ending the headers is not before this
  bool chunked_ = false;
  size_t body_at_ = 0;       // where the body starts
  uint64_t body_bytes_ = 0;  // Content-Length, or the chunks' sizes so far
  size_t chunk_at_ = 0;      // chunked: the next chunk's size line (or trailer line)
  bool trailers_ = false;    // chunked: past the last chunk
};

}  // namespace braid::serving
