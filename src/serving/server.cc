#include "braid/serving/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace braid::serving {
namespace {

using json = nlohmann::json;
constexpr const char* kJson = "application/json";
// /v2/models/{name}[/versions/{version}]
const std::string kModel = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), kJson);
}

std::shared_ptr<ServedModel> model_of(const Repository& repo, const httplib::Request& req) {
  return repo.find(req.matches[1], req.matches.size() > 2 ? std::string(req.matches[2]) : "");
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
    : repository_(std::move(repository)), options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {
  routes();
}

InferenceServer::~InferenceServer() { stop(); }

void InferenceServer::routes() {
  httplib::Server& s = *http_;
  Repository& repo = *repository_;
  s.set_payload_max_length(options_.max_body_bytes);
  // Headers and body go out as separate writes: without this, Nagle holds the body back until
  // the peer's delayed ACK (40 ms behind a proxy).
  s.set_tcp_nodelay(true);
  // A kept-alive connection holds a thread while it waits for its next request: enough threads
  // for a proxy's pool of upstream connections, and connections that stay open.
  const size_t threads = options_.threads;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_keep_alive_max_count(100000);
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
    const std::string why = res.status == 404   ? "no such route: " + req.method + " " + req.path
                            : res.status == 413 ? "the request body is over the server's limit"
                                                : "request failed";
    reply(res, res.status, {{"error", why}});
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
    try {
      json_bytes = std::stoull(req.get_header_value("Inference-Header-Content-Length"));
    } catch (const std::exception&) {
      throw RequestError(400, "Inference-Header-Content-Length is not a byte count");
    }
  }
  const InferRequest request = parse_infer_request(body, json_bytes);
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
      "# TYPE braid_request_seconds histogram\n";
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
  // Debian's cpp-httplib listens with a backlog of 5: a burst of new connections (a proxy's pool,
  // 16 clients at once) then loses SYNs, each costing a 1 s retransmission. Listening again on the
  // socket raises the backlog.
  int listener = -1;
  http_->set_socket_options([&listener](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);  // as cpp-httplib's default
    listener = sock;
  });
  port_ = options_.port == 0 ? http_->bind_to_any_port(options_.host)
                             : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  BRAID_CHECK(port_ > 0, "braid serve: cannot listen on ", options_.host, ":", options_.port,
              " (in use, or not an address of this machine)");
  if (listener >= 0) ::listen(listener, SOMAXCONN);
  thread_ = std::thread([this] { http_->listen_after_bind(); });
}

void InferenceServer::stop() {
  if (!thread_.joinable()) return;
  http_->stop();
  thread_.join();
}

}  // namespace braid::serving
