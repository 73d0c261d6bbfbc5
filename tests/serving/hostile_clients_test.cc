// braid serve against hostile clients, over real sockets on 127.0.0.1: slow connections that
// never finish a request, more connections than the caps allow, malformed paths, headers and
// bodies. Each is answered (or closed) as it should be, and the others are served meanwhile.
#include <gtest/gtest.h>

#include <mutex>

#include <condition_variable>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "raw_http.h"
#include "serve_fixture.h"

namespace braid::test {
namespace {

const std::string kInfer = "/v2/models/mnist/versions/1/infer";

// Sends `request` on a connection of its own; the status and the JSON error of the answer.
std::pair<int, std::string> answer_to(int port, const std::string& request) {
  RawConnection c(port);
  c.send(request);
  EXPECT_TRUE(c.read_response(10)) << request.substr(0, 100);
  const json body = json::parse(c.body(), nullptr, false);
  return {c.status(), body.is_object() ? body.value("error", "(no error)") : "(not JSON) " + c.body()};
}

TEST(HostileClients, SlowClientsDoNotStarveOthersAndAreClosedAtTheirDeadline) {
  Server s(make_repository(), {"--header-timeout", "5", "--body-timeout", "5", "--keep-alive-timeout", "5"});
  // 64 connections, never finishing a request: silent, a partial request line, partial headers
  // (trickling more), a partial body.
  const std::vector<std::string> starts = {
      "", "GET /v2/hea", "POST /v2/models/mnist/infer HTTP/1.1\r\nHost: x\r\n",
      "POST /v2/models/mnist/infer HTTP/1.1\r\nContent-Length: 1000\r\n\r\n{\"inputs\""};
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (size_t i = 0; i < 64; ++i) {
    slow.push_back(std::make_unique<RawConnection>(s.port));
    ASSERT_TRUE(slow.back()->connected());
    if (!starts[i % 4].empty()) slow.back()->send(starts[i % 4]);
  }
  // Trickles a byte every 200 ms (the client's pace) until told to stop.
  std::mutex trickle_mu;
  std::condition_variable stop_trickling;
  bool trickling = true;
  std::thread trickle([&] {
    std::unique_lock<std::mutex> lock(trickle_mu);
    do {
      for (size_t i = 2; i < slow.size(); i += 4) slow[i]->send("X");
    } while (!stop_trickling.wait_for(lock, std::chrono::milliseconds(200), [&] { return !trickling; }));
  });
  // Meanwhile others are served, without waiting for the slow ones' deadlines.
  httplib::Client c("127.0.0.1", s.port);
  c.set_connection_timeout(2);
  c.set_read_timeout(2);
  auto ready = c.Get("/v2/health/ready");
  auto infer = c.Post(kInfer, infer_body(test_images(1)).dump(), "application/json");
  for (size_t i = 0; i < slow.size(); ++i) EXPECT_FALSE(slow[i]->closed_now()) << "slow connection " << i;
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  ASSERT_TRUE(infer);
  EXPECT_EQ(infer->status, 200) << infer->body;
  // The server closes every slow connection at its deadline, trickling or not.
  for (size_t i = 0; i < slow.size(); ++i) EXPECT_TRUE(slow[i]->read_until_closed(20)) << "slow connection " << i;
  {
    std::lock_guard<std::mutex> lock(trickle_mu);
    trickling = false;
  }
  stop_trickling.notify_all();
  trickle.join();
  EXPECT_EQ(slow[0]->received(), "");  // an idle connection is closed without a word
  for (size_t i : {1, 2}) {
    EXPECT_EQ(slow[i]->status(), 408);
    EXPECT_EQ(json::parse(slow[i]->body())["error"],
              "the request did not arrive in time (braid serve --header-timeout 5 s)");
  }
  EXPECT_EQ(slow[3]->status(), 408);
  EXPECT_EQ(json::parse(slow[3]->body())["error"],
            "the request did not arrive in time (braid serve --body-timeout 5 s)");
  EXPECT_EQ(s.get("/v2/health/live")["live"], true);
}

TEST(HostileClients, ConnectionsBeyondTheCapAreRefusedAtOnce) {
  Server s(make_repository(), {"--max-connections-per-client", "4"});
  const std::string live = "GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n";
  // An answered request shows the connection was admitted (the fixture's own connection may
  // still be counted for a moment: a refused one is tried again).
  auto admitted = [&] {
    auto c = std::make_unique<RawConnection>(s.port);
    return c->send(live) && c->read_response(10) && c->status() == 200 ? std::move(c) : nullptr;
  };
  std::vector<std::unique_ptr<RawConnection>> open;
  for (int i = 0; i < 4; ++i) {
    std::unique_ptr<RawConnection> c;
    ASSERT_TRUE(wait_until([&] { return (c = admitted()) != nullptr; })) << "connection " << i;
    open.push_back(std::move(c));
  }
  const auto [status, error] = answer_to(s.port, live);
  EXPECT_EQ(status, 503);
  EXPECT_EQ(error,
            "too many connections (braid serve --max-connections 512, --max-connections-per-client 4); try again "
            "later");
  // A connection closed makes room for another.
  open.pop_back();
  EXPECT_TRUE(wait_until([&] { return admitted() != nullptr; }));
  // The admitted ones are kept alive and served again.
  open[0]->clear();
  EXPECT_TRUE(open[0]->send(live) && open[0]->read_response(10));
  EXPECT_EQ(open[0]->status(), 200);
}

TEST(HostileClients, MalformedPathsHeadersAndBodiesGetA4xxWithAJsonReason) {
  Server s(make_repository(), {"--max-body-mb", "1"});
  const std::string end = " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  const std::string post = "POST " + kInfer + end;
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"GET /v2/models/mnist/versions/99999999999999999999" + end + "\r\n", 400,
       "a version is a number of 1 to 18 digits; got '99999999999999999999'"},
      {"GET /v2/models/mnist/versions/-1" + end + "\r\n", 400, "a version is a number of 1 to 18 digits; got '-1'"},
      {"GET /v2/models/" + std::string(5000, 'm') + end + "\r\n", 400, "the request path is over 1024 bytes"},
      {"GET /v2/models/" + std::string(300, 'm') + end + "\r\n", 400,
       "a model name has 1 to 256 characters: letters, digits, '_', '-' and '.', not first; got a name of 300 "
       "characters"},
      {"GET /v2/models/mn%00ist" + end + "\r\n", 400, "the request path holds control characters (%00 to %1F, %7F)"},
      {"GET /v2/models/mn%0Aist/ready" + end + "\r\n", 400,
       "the request path holds control characters (%00 to %1F, %7F)"},
      {"POST /v2/repository/models/../load" + end + "Content-Length: 0\r\n\r\n", 400,
       "a model name has 1 to 256 characters: letters, digits, '_', '-' and '.', not first; got '..'"},
      {"GET /v2/models/mnist%5C..%5Cx" + end + "\r\n", 400,
       "a model name has 1 to 256 characters: letters, digits, '_', '-' and '.', not first; got 'mnist\\..\\x'"},
      {"GET /v2/models/m%FF" + end + "\r\n", 400,
       "a model name has 1 to 256 characters: letters, digits, '_', '-' and '.', not first; got 'm\xEF\xBF\xBD'"},
      {post + "Content-Length: -5\r\n\r\n", 400, "Content-Length '-5' is not a byte count"},
      {post + "Content-Length: 5000000000\r\n\r\n", 413,
       "the request body of 5000000000 bytes is over the server's limit of 1048576 bytes (braid serve --max-body-mb)"},
      {post + "Transfer-Encoding: gzip\r\n\r\n", 400,
       "Transfer-Encoding 'gzip' is not supported; send the body with Content-Length, or chunked"},
      {post + "Inference-Header-Content-Length: -5\r\nContent-Length: 2\r\n\r\n{}", 400,
       "Inference-Header-Content-Length is not a byte count"},
      {post + "Content-Length: 2\r\n\r\n[]", 400, "the request must be a JSON object with \"inputs\""},
      {"HELLO\r\n\r\n", 400, "malformed HTTP request: its request line or headers cannot be parsed"},
      {"GET /v2" + end + "X-Big: " + std::string(70000, 'a') + "\r\n\r\n", 431,
       "the request's line and headers are over the server's limit of 65536 bytes"},
      {"GET /v2" + end + "Range: bytes=zz\r\n\r\n", 416, "malformed Range header"},
      {"DELETE /v2/models/mnist" + end + "\r\n", 404, "no such route: DELETE /v2/models/mnist"},
  };
  for (const auto& [request, status, error] : cases) {
    const auto [got_status, got_error] = answer_to(s.port, request);
    EXPECT_EQ(got_status, status) << request.substr(0, 100);
    EXPECT_EQ(got_error, error) << request.substr(0, 100);
  }
  // A chunked body is read whole, then answered.
  const std::string body = infer_body(test_images(1)).dump();
  std::string chunked = "POST " + kInfer + end + "Transfer-Encoding: chunked\r\n\r\n";
  for (size_t at = 0; at < body.size(); at += 1000) {
    const std::string part = body.substr(at, 1000);
    chunked += cat(std::hex, part.size(), "\r\n", part, "\r\n");
  }
  RawConnection c(s.port);
  c.send(chunked + "0\r\n\r\n");
  ASSERT_TRUE(c.read_until_closed(10));
  EXPECT_EQ(c.status(), 200) << c.received().substr(0, 300);
  EXPECT_EQ(s.get("/v2/health/live")["live"], true);
  EXPECT_FALSE(s.process->wait(0.1).has_value()) << "the server died";
}

TEST(HostileClients, DeepJsonAndNumbersTheDatatypeCannotHoldAreRefused) {
  Server s(make_repository());
  // 200 KB of nested arrays: refused while parsing, before any of it is built or walked.
  const std::string deep = R"({"inputs": [{"name": "data", "shape": [1, 1, 28, 28], "datatype": "FP32", "data": )" +
                           std::string(100000, '[') + "1" + std::string(100000, ']') + "}]}";
  EXPECT_EQ(s.post(kInfer, deep, 400)["error"], "the request nests JSON deeper than the server's limit of 64 levels");
  json body = infer_body(test_images(1));
  body["inputs"][0]["data"][5] = 1e300;  // float32 would make it inf
  EXPECT_EQ(s.post(kInfer, body.dump(), 400)["error"],
            "input 'data': element 5 is 1e+300, outside the range of FP32 (-3.40282e+38 to 3.40282e+38)");
  EXPECT_EQ(s.post(kInfer, infer_body(test_images(1)).dump())["outputs"][0]["shape"], json({1, 10}));
}

}  // namespace
}  // namespace braid::test
