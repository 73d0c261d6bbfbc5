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
/// route), 413 (a body over the limit) or 500, and a JSON body {"error": "..."} saying what was
/// wrong; the server goes on.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "braid/serving/histogram.h"
#include "braid/serving/repository.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace braid::serving {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;  // 0: any free port
  size_t max_body_bytes = size_t{64} << 20;
  bool access_log = false;  // one line per request on stderr
  size_t threads = 64;      // connections served at once (each kept-alive one holds a thread)
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
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace braid::serving
