#include "braid/serving/server.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "serving/connection_gate.h"
#include "serving/model_names.h"
#include "serving/request_stream.h"

namespace braid::serving {

// cpp-httplib's request handling (parsing, routing, writing the answer) on a stream of ours.
class HttpRoutes : public httplib::Server {
 public:
  bool serve(httplib::Stream& stream, bool close_connection, bool& client_closes) {
    return process_request(stream, close_connection, client_closes, nullptr);
  }
};

namespace {

using json = nlohmann::json;
constexpr const char* kJson = "application/json";
// /v2/models/{name}[/versions/{version}]
const std::string kModel = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";

constexpr size_t kMaxPathBytes = 1024;  // the longest route with the longest model name fits

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  // Errors may quote the client's bytes, which need not be UTF-8.
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), kJson);
}

std::shared_ptr<ServedModel> model_of(const Repository& repo, const httplib::Request& req) {
  return repo.find(req.matches[1], req.matches.size() > 2 ? std::string(req.matches[2]) : "");
}

// Before routing: a path the routes' patterns need not see (patterns match long input slowly).
bool refused_path(const httplib::Request& req, httplib::Response& res) {
  if (req.path.size() > kMaxPathBytes) {
    reply(res, 400, {{"error", cat("the request path is over ", kMaxPathBytes, " bytes")}});
    return true;
  }
  if (std::any_of(req.path.begin(), req.path.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    reply(res, 400, {{"error", "the request path holds control characters (%00 to %1F, %7F)"}});
    return true;
  }
  return false;
}

// What cpp-httplib answered without a handler.
std::string reason_of(int status, const httplib::Request& req) {
  switch (status) {
    case 400:
      return "malformed HTTP request: its request line or headers cannot be parsed";
    case 404:
      return "no such route: " + req.method + " " + req.path;
    case 413:
      return "the request body is over the server's limit";
    case 414:
      return "the request line is over the server's limit of 8192 bytes";
    case 416:
      return "malformed Range header";
    default:
      return "request failed";
  }
}

json specs_json(const std::vector<TensorSpec>& specs) {
  json out = json::array();
  for (const auto& t : specs) {
    std::vector<int64_t> shape{-1};
    if (t.shape.empty())
      shape = {-1};
    else
      shape.insert(shape.end(), t.shape.begin(), t.shape.end());
    out.push_back({{"name", t.name}, {"datatype", datatype_of(t.dtype)}, {"shape", shape}});
  }
  return out;
}

// Runs `fn`, answering a RequestError with its status and any other failure with 500.
template <class Fn>
void answer_failures(httplib::Response& res, Fn&& fn) {
  try {
    fn();
  } catch (const RequestError& e) {
    reply(res, e.status, {{"error", e.what()}});
  } catch (const Error& e) {  // the model could not run these inputs
    reply(res, 400, {{"error", e.what()}});
  } catch (const std::exception& e) {
    reply(res, 500, {{"error", std::string("internal error: ") + e.what()}});
  }
}

template <class Fn>
httplib::Server::Handler guarded(Fn fn) {
  return [fn](const httplib::Request& req, httplib::Response& res) { answer_failures(res, [&] { fn(req, res); }); };
}

// The request's body, in a string sized once from Content-Length: cpp-httplib's own reading
// grows it a few KB at a time, copying it again at every doubling (and faulting in fresh pages).
std::string read_body(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader,
                      size_t limit) {
  std::string body;
  body.reserve(static_cast<size_t>(std::min<uint64_t>(req.get_header_value<uint64_t>("Content-Length"), limit)));
  const bool complete = reader([&](const char* data, size_t n) {
    body.append(data, n);
    return true;
  });
  if (!complete && res.status == 413)  // set by cpp-httplib, which stops reading there
    throw RequestError(
        413, cat("the request body is over the server's limit of ", limit, " bytes (braid serve --max-body-mb)"));
  if (!complete) throw RequestError(400, "the request body could not be read to its end");
  return body;
}

}  // namespace

InferenceServer::InferenceServer(std::shared_ptr<Repository> repository, ServerOptions options)
    : repository_(std::move(repository)), options_(std::move(options)), http_(std::make_unique<HttpRoutes>()) {
  routes();
}

InferenceServer::~InferenceServer() { stop(); }

void InferenceServer::routes() {
  httplib::Server& s = *http_;
  Repository& repo = *repository_;
  s.set_payload_max_length(options_.max_body_bytes);
  // Only advertised in Keep-Alive headers: the connection gate enforces the timeout, and there is
  // no cap on requests per connection.
  s.set_keep_alive_timeout(static_cast<time_t>(options_.keep_alive_timeout_s));
  s.set_keep_alive_max_count(100000);
  s.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    return refused_path(req, res) ? httplib::Server::HandlerResponse::Handled
                                  : httplib::Server::HandlerResponse::Unhandled;
  });
  s.Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) { reply(res, 200, {{"live", true}}); });
  s.Get("/v2/health/ready", [](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, {{"ready", true}});
  });
  s.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, {{"name", "braid"}, {"version", "0.1"}, {"extensions", {"binary_tensor_data"}}});
  });
  s.Get(kModel, guarded([&repo](const httplib::Request& req, httplib::Response& res) {
          auto m = model_of(repo, req);
          reply(res, 200,
                {{"name", m->name()},
                 {"versions", {m->version()}},
                 {"platform", "mxnet_symbol"},
                 {"inputs", specs_json(m->inputs())},
                 {"outputs", specs_json(m->outputs())}});
        }));
  s.Get(kModel + "/ready", guarded([&repo](const httplib::Request& req, httplib::Response& res) {
          auto m = model_of(repo, req);
          reply(res, 200, {{"name", m->name()}, {"version", m->version()}, {"ready", true}});
        }));
  s.Post(kModel + "/infer",
         [this, &repo](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
           answer_failures(res, [&] { infer(repo, req, res, read_body(req, res, reader, options_.max_body_bytes)); });
         });
  s.Post(R"(/v2/repository/models/([^/]+)/load)", guarded([&repo](const httplib::Request& req, httplib::Response& res) {
           repo.load(req.matches[1]);
           reply(res, 200, json::object());
         }));
  s.Post(R"(/v2/repository/models/([^/]+)/unload)",
         guarded([&repo](const httplib::Request& req, httplib::Response& res) {
           repo.unload(req.matches[1]);
           reply(res, 200, json::object());
         }));
  auto index =
      guarded([&repo](const httplib::Request&, httplib::Response& res) { res.set_content(repo.index(), kJson); });
  s.Get("/v2/repository/index", index);
  s.Post("/v2/repository/index", index);
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics(), "text/plain; version=0.0.4");
  });
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // a handler's own answer
    reply(res, res.status, {{"error", reason_of(res.status, req)}});
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      reply(res, 500, {{"error", std::string("internal error: ") + x.what()}});
    } catch (...) {
      reply(res, 500, {{"error", "internal error"}});
    }
  });
  if (options_.access_log)
    s.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      std::fprintf(stderr, "%s %s %s %d %zu\n", req.remote_addr.c_str(), req.method.c_str(), req.path.c_str(),
                   res.status, res.body.size());
    });
}

// POST .../infer: the body parsed, the model run (through its batcher), the answer in JSON or
// binary.
void InferenceServer::infer(const Repository& repo, const httplib::Request& req, httplib::Response& res,
                            const std::string& body) {
  auto m = model_of(repo, req);
  const auto arrived = std::chrono::steady_clock::now();
  count(m->name(), m->version(), false);
  struct Failure {  // counts the request as failed unless it reaches the end
    InferenceServer* server;
    std::shared_ptr<ServedModel> m;
    bool ok = false;
    ~Failure() {
      if (!ok) server->count(m->name(), m->version(), true);
    }
  } failure{this, m};
  size_t json_bytes = body.size();
  if (req.has_header("Inference-Header-Content-Length")) {
    const auto n = parse_byte_count(req.get_header_value("Inference-Header-Content-Length"));
    if (!n) throw RequestError(400, "Inference-Header-Content-Length is not a byte count");
    json_bytes = *n;
  }
  const InferRequest request = parse_infer_request(body, json_bytes, m->request_limits());
  size_t header = 0;
  std::string answer =
      infer_response(m->name(), m->version(), request.id, m->infer(request), request.binary_outputs, &header);
  if (request.binary_outputs) res.set_header("Inference-Header-Content-Length", std::to_string(header));
  res.set_content(std::move(answer), request.binary_outputs ? "application/octet-stream" : kJson);
  failure.ok = true;
  latency(m->name(), m->version(), std::chrono::duration<double>(std::chrono::steady_clock::now() - arrived).count());
}

void InferenceServer::count(const std::string& model, const std::string& version, bool failed) {
  std::lock_guard<std::mutex> lock(counts_mu_);
  auto& c = counts_[{model, version}];
  (failed ? c.failures : c.requests) += 1;
}

void InferenceServer::latency(const std::string& model, const std::string& version, double seconds) {
  std::lock_guard<std::mutex> lock(counts_mu_);
  counts_[{model, version}].latency.add(seconds);
}

// Prometheus text format: requests and failures per model version, and the batches it ran.
std::string InferenceServer::metrics() const {
  std::string out =
      "# HELP braid_inference_requests_total Inference requests received.\n"
      "# TYPE braid_inference_requests_total counter\n"
      "# HELP braid_inference_failures_total Inference requests answered with an error.\n"
      "# TYPE braid_inference_failures_total counter\n"
      "# HELP braid_batch_size Rows of the batches run.\n"
      "# TYPE braid_batch_size histogram\n"
      "# HELP braid_queue_seconds Time a request waited for its batch.\n"
      "# TYPE braid_queue_seconds histogram\n"
      "# HELP braid_compute_seconds Time the model took for a batch.\n"
      "# TYPE braid_compute_seconds histogram\n"
      "# HELP braid_request_seconds Time from a request's arrival to its answer (successful ones).\n"
      "# TYPE braid_request_seconds histogram\n"
      "# HELP braid_queued_requests Requests waiting for a batch now.\n"
      "# TYPE braid_queued_requests gauge\n"
      "# HELP braid_batched_requests Requests in a batch that is forming or running now.\n"
      "# TYPE braid_batched_requests gauge\n";
  std::map<std::pair<std::string, std::string>, Counts> counts;
  {
    std::lock_guard<std::mutex> lock(counts_mu_);
    counts = counts_;
  }
  for (const auto& [key, c] : counts) {
    const std::string labels = cat("{model=\"", key.first, "\",version=\"", key.second, "\"}");
    out += cat("braid_inference_requests_total", labels, " ", c.requests, "\n");
    out += cat("braid_inference_failures_total", labels, " ", c.failures, "\n");
  }
  for (const auto& m : repository_->all()) {
    const std::string labels = cat("model=\"", m->name(), "\",version=\"", m->version(), "\"");
    out += m->batch_metrics(labels);
    std::lock_guard<std::mutex> lock(counts_mu_);
    if (auto c = counts_.find({m->name(), m->version()}); c != counts_.end())
      out += c->second.latency.render("braid_request_seconds", labels);
  }
  return out;
}

void InferenceServer::start() {
  workers_ = std::make_unique<httplib::ThreadPool>(options_.threads);
  gate_ = std::make_unique<ConnectionGate>(options_, [this](std::unique_ptr<Connection> c) {
    // The pool takes copyable jobs; it runs every job enqueued before its shutdown, which comes
    // after the gate's last.
    workers_->enqueue([this, raw = c.release()] { handle(std::unique_ptr<Connection>(raw)); });
  });
  port_ = gate_->listen();
  BRAID_CHECK(port_ > 0, "braid serve: cannot listen on ", options_.host, ":", options_.port,
              " (in use, or not an address of this machine)");
  gate_->start();
}

void InferenceServer::handle(std::unique_ptr<Connection> connection) {
  RequestStream stream(*connection, options_.write_timeout_s);
  bool client_closes = false;
  const bool answered = http_->serve(stream, stopping_, client_closes);
  connection->drop_request();
  if (answered && !client_closes && !stopping_) gate_->resume(std::move(connection));
}

void InferenceServer::stop() {
  if (!gate_) return;
  stopping_ = true;
  gate_->stop();         // no new requests; idle connections closed
  workers_->shutdown();  // the requests read already are answered
  gate_.reset();
  workers_.reset();
}

}  // namespace braid::serving
