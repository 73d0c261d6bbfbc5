#pragma once
/// `braid serve`: the Open Inference Protocol v2 REST API (KServe) over HTTP/1.1 for the models
/// of a repository (repository.h):
///
///   GET  /v2/health/live, /v2/health/ready, /v2
///   GET  /v2/models/{name}[/versions/{v}]          metadata: inputs, outputs (-1: any batch)
///   GET  /v2/models/{name}[/versions/{v}]/ready
///   POST /v2/models/{name}[/versions/{v}]/infer    JSON, or the binary-tensor extension
///
///   POST /v2/repository/models/{name}/load|unload   while serving
///   GET|POST /v2/repository/index                  every model folder and its state
///   GET  /metrics                                  Prometheus: requests, failures, batch sizes
///
/// Errors are answered with 400 (a malformed or wrong request), 404 (no such model, version or
/// route), 408 (a request that did not arrive in time), 413 (a body over the limit), 414 (a request
/// line over 8 KB), 431 (headers too large), 503 (a full queue, too many connections), and a JSON body
/// {"error": "..."} saying what was wrong; the server goes on.
///
/// One thread reads every request whole before a request thread takes it (connection_gate.h):
/// slow or silent clients hold no request thread, and are closed at their deadline.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "braid/serving/histogram.h"
#include "braid/serving/repository.h"

namespace httplib {
class ThreadPool;
struct Request;
struct Response;
}  // namespace httplib

namespace braid::serving {

class ConnectionGate;
class HttpRoutes;
struct Connection;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;  // 0: any free port
  size_t max_body_bytes = size_t{64} << 20;
  size_t max_header_bytes = 64 << 10;  // request line and headers
  bool access_log = false;             // one line per request on stderr
  size_t threads = 64;                 // requests handled at once
  // Seconds: an idle connection waits for its next request; a request's first byte to the end of
  // its headers; the headers to the end of its body; the first byte of an answer to its last.
  double keep_alive_timeout_s = 5, header_timeout_s = 10, body_timeout_s = 60, write_timeout_s = 30;
  size_t max_connections = 512, max_connections_per_client = 128;
};

class InferenceServer {
 public:
  InferenceServer(std::shared_ptr<Repository> repository, ServerOptions options);
  ~InferenceServer();
  /// Binds and serves on a thread of its own; throws if the address cannot be bound.
  void start();
  /// The port it listens on.
  int port() const { return port_; }
  /// Stops taking connections, lets the requests in flight finish, and returns.
  void stop();

 private:
  void routes();
  // Answers the whole request at the front of the connection's bytes, then hands the connection
  // back to the gate (or closes it).
  void handle(std::unique_ptr<Connection> connection);
  void infer(const Repository& repo, const httplib::Request& req, httplib::Response& res, const std::string& body);
  // Counts a request (failed: one answered with an error).
  void count(const std::string& model, const std::string& version, bool failed);
  // An answered request's time from arrival to answer.
  void latency(const std::string& model, const std::string& version, double seconds);
  std::string metrics() const;
  struct Counts {
    int64_t requests = 0, failures = 0;
    Histogram latency;
  };
  mutable std::mutex counts_mu_;
  std::map<std::pair<std::string, std::string>, Counts> counts_;  // (model, version) -> counts
  std::shared_ptr<Repository> repository_;
  ServerOptions options_;
  std::unique_ptr<HttpRoutes> http_;
  std::unique_ptr<ConnectionGate> gate_;
  std::unique_ptr<httplib::ThreadPool> workers_;
  std::atomic<bool> stopping_{false};
  int port_ = 0;
};

}  // namespace braid::serving
