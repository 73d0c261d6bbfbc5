// Fuzz target for braid serve's request decoding: the bytes as an inference request body
// (src/serving/protocol), and as the HTTP request the connection gate frames
// (src/serving/request_framer). Malformed input is refused with RequestError (the body) or a
// Refused framing (the request); any other exception, a crash or a hang is a finding.
//
// A body that starts with a byte count and a newline ("125\n{...}") is decoded with the binary
// extension: the count is Inference-Header-Content-Length, the rest the body.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "braid/serving/protocol.h"
#include "serving/request_framer.h"

namespace {

void decode_body(std::string_view bytes) {
  std::string_view body = bytes;
  size_t json_bytes = body.size();
  if (const size_t newline = bytes.find('\n'); newline != std::string_view::npos) {
    if (const auto count = braid::serving::parse_byte_count(bytes.substr(0, newline))) {
      body = bytes.substr(newline + 1);
      json_bytes = static_cast<size_t>(*count);
    }
  }
  try {
    braid::serving::parse_infer_request(body, json_bytes);
  } catch (const braid::serving::RequestError&) {
  }
}

// The request arriving in two parts, as from a socket: the framer keeps its place between them.
void frame_request(std::string_view bytes) {
  braid::serving::RequestFramer framer({.max_header_bytes = 4096, .max_body_bytes = 1 << 16});
  std::string received(bytes.substr(0, bytes.size() / 2));
  framer.update(received);
  received.append(bytes.substr(bytes.size() / 2));
  framer.update(received);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  decode_body(bytes);
  frame_request(bytes);
  return 0;
}
