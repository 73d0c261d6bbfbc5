// Where the connection gate finds a request's end (src/serving/request_framer): Content-Length
// and chunked bodies whole, bytes arriving a few at a time, and every framing refused with its
// status before the body is read.
#include "serving/request_framer.h"

#include <gtest/gtest.h>

namespace braid::serving {
namespace {

const FramingLimits kLimits{.max_header_bytes = 256, .max_body_bytes = 100};

// Feeds `request` one byte at a time, as the slowest client would send it.
Framing frame_bytewise(const std::string& request, std::string& received) {
  RequestFramer framer(kLimits);
  Framing f;
  for (char c : request) {
    received += c;
    f = framer.update(received);
    if (f.state != Framing::State::Incomplete) break;
  }
  return f;
}

Framing frame(const std::string& request) {
  std::string received;
  return frame_bytewise(request, received);
}

TEST(RequestFramer, FindsTheEndOfBodiesByLengthAndByChunks) {
  const std::string get = "GET /v2 HTTP/1.1\r\nHost: x\r\n\r\n";
  Framing f = frame(get + "GET /next");  // a pipelined request after it is not part of it
  EXPECT_EQ(f.state, Framing::State::Complete);
  EXPECT_EQ(f.end, get.size());

  const std::string post = "POST /p HTTP/1.1\r\ncontent-length:  5 \r\n\r\nhello";
  f = frame(post + "GET");
  EXPECT_EQ(f.state, Framing::State::Complete);
  EXPECT_EQ(f.end, post.size());

  const std::string chunked =
      "POST /p HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Sum: "
      "1\r\n\r\n";
  f = frame(chunked + "GET");
  EXPECT_EQ(f.state, Framing::State::Complete);
  EXPECT_EQ(f.end, chunked.size());
}

TEST(RequestFramer, AnswersExpectContinueItselfAndDropsTheHeader) {
  std::string received;
  RequestFramer framer(kLimits);
  received = "POST /p HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
  Framing f = framer.update(received);
  EXPECT_TRUE(f.headers_complete);
  EXPECT_TRUE(f.continue_wanted);
  EXPECT_EQ(f.state, Framing::State::Incomplete);
  EXPECT_EQ(received, "POST /p HTTP/1.1\r\nContent-Length: 2\r\n\r\n");
  received += "ok";
  f = framer.update(received);
  EXPECT_EQ(f.state, Framing::State::Complete);
  EXPECT_EQ(f.end, received.size());
}

void expect_refused(const std::string& request, int status, const std::string& reason) {
  const Framing f = frame(request);
  EXPECT_EQ(f.state, Framing::State::Refused) << request;
  EXPECT_EQ(f.status, status) << request;
  EXPECT_NE(f.error.find(reason), std::string::npos) << f.error;
}

TEST(RequestFramer, RefusesMalformedOrOversizedFramingWithItsStatus) {
  expect_refused("POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", 400, "Content-Length '-5' is not a byte count");
  expect_refused("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400, "is not a byte count");
  expect_refused("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400,
                 "two Content-Length headers that differ");
  expect_refused("POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                 "both Content-Length and Transfer-Encoding");
  expect_refused("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 400,
                 "Transfer-Encoding 'gzip' is not supported");
  expect_refused("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 413, "the request body of 101 bytes is over");
  expect_refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n", 413, "chunked request body is over");
  expect_refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "malformed chunk size line 'zz'");
  expect_refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", 400, "longer than its size line");
  // Tiny chunks count their framing toward the body limit.
  std::string tiny = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 30; ++i) tiny += "1\r\nx\r\n";
  expect_refused(tiny, 413, "chunked request body is over");
  expect_refused("GET / HTTP/1.1\r\nX-Long: " + std::string(300, 'a'), 431, "over the server's limit of 256 bytes");
}

TEST(RequestFramer, ParsesByteCountsStrictly) {
  EXPECT_EQ(parse_byte_count("0"), 0u);
  EXPECT_EQ(parse_byte_count("123456789012345678"), 123456789012345678u);
  for (const char* bad : {"", "-5", "+5", " 5", "5 ", "0x10", "1e3", "1234567890123456789"})
    EXPECT_FALSE(parse_byte_count(bad).has_value()) << bad;
}

}  // namespace
}  // namespace braid::serving
