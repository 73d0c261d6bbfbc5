// braid infer: a client of braid serve (or any Open Inference Protocol v2 server). Sends the
// images of an idx file in batches from several connections at once, then prints the accuracy
// (with labels), the latency percentiles and the throughput. Each connection may first send a
// few untimed warm-up requests (connections opened, the server's first batches run); the timed
// part may go over the images several times.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <latch>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "braid/base/error.h"
#include "braid/io/idx.h"
#include "braid/io/json_limits.h"
#include "commands.h"
#include "model_inputs.h"

namespace braid::cli {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int infer(const InferOptions& o) {
  NDArray images = load_inputs(o.images);
  if (o.limit > 0 && o.limit < images.shape()[0]) images = images.slice(0, o.limit);
  const int64_t n = images.shape()[0];
  const std::vector<float> pixels = images.to_vector<float>();
  const int64_t per_image = images.size() / n;
  std::vector<int64_t> predicted(static_cast<size_t>(n), -1);
  std::vector<double> latencies;
  std::mutex mu;
  std::atomic<int64_t> next{0};
  std::string failure;
  const std::string path = "/v2/models/" + o.model + (o.version.empty() ? "" : "/versions/" + o.version) + "/infer";
  const int64_t per_pass = (n + o.batch_size - 1) / o.batch_size;  // requests
  std::latch warmed_up(o.concurrency + 1);
  Clock::time_point start;
  std::function<void(bool& warmed)> send_batches;
  auto client_loop = [&] {
    bool warmed = false;
    try {
      send_batches(warmed);
    } catch (const std::exception& e) {     // on a thread: reported, not fatal
      if (!warmed) warmed_up.count_down();  // the timed part starts without this connection
      std::lock_guard<std::mutex> lock(mu);
      if (failure.empty()) failure = e.what();
    }
  };
  send_batches = [&](bool& warmed) {
    httplib::Client client(o.url);
    client.set_read_timeout(60, 0);
    client.set_tcp_nodelay(true);
    client.set_keep_alive(true);  // one connection per client thread
    // Sends images [begin, begin + rows).
    auto post = [&](int64_t begin, int64_t rows) {
      std::vector<int64_t> shape = images.shape().dims();
      shape[0] = rows;
      // The binary-tensor extension: the JSON header, then the float32 pixels.
      const std::string header = json{{"inputs",
                                       {{{"name", o.input},
                                         {"datatype", "FP32"},
                                         {"shape", shape},
                                         {"parameters", {{"binary_data_size", rows * per_image * 4}}}}}},
                                      {"parameters", {{"binary_data_output", true}}}}
                                     .dump();
      // Written straight from `pixels` after the header: no copy of the body.
      const char* data = reinterpret_cast<const char*>(pixels.data() + begin * per_image);
      const size_t data_bytes = static_cast<size_t>(rows * per_image * 4);
      return client.Post(
          path, {{"Inference-Header-Content-Length", std::to_string(header.size())}}, header.size() + data_bytes,
          [&](size_t offset, size_t, httplib::DataSink& sink) {
            return offset < header.size()
                       ? sink.write(header.data() + offset, header.size() - offset)
                       : sink.write(data + (offset - header.size()), data_bytes - (offset - header.size()));
          },
          "application/octet-stream");
    };
    // The bytes of the answer's output 0 (float32, rows × classes) inside r's body, or nothing
    // after noting a failure.
    auto output_of = [&](const httplib::Result& r) -> std::optional<std::string_view> {
      std::lock_guard<std::mutex> lock(mu);
      if (!r || r->status != 200) {
        if (failure.empty())
          failure = r ? cat("the server answered ", r->status, ": ", r->body.substr(0, 300))
                      : cat("no answer from ", o.url, " (", httplib::to_string(r.error()), ")");
        return std::nullopt;
      }
      // The answer's JSON header, then output 0's float32 values. Nothing here may throw: this
      // runs on a client thread, and the answer comes from outside.
      json out;
      const std::string length_text = r->get_header_value("Inference-Header-Content-Length");
      char* end = nullptr;
      const unsigned long long header_length = std::strtoull(length_text.c_str(), &end, 10);
      const bool framed = !length_text.empty() && *end == '\0' && header_length <= r->body.size();
      if (framed) {
        json head;
        try {
          head = io::parse_json(std::string_view(r->body).substr(0, header_length), "the server's answer");
        } catch (const Error&) {  // noted below as an answer without an FP32 output
        }
        if (head.is_object() && head.contains("outputs") && head["outputs"].is_array() && !head["outputs"].empty())
          out = head["outputs"][0];
      }
      if (!out.is_object() || out.value("datatype", "") != "FP32") {
        if (failure.empty())
          failure =
              "the server's answer is not an FP32 output in binary (Inference-Header-Content-Length); does it "
              "support the binary-tensor extension?";
        return std::nullopt;
      }
      return std::string_view(r->body).substr(header_length);
    };
    bool ok = true;
    for (int64_t i = 0; i < o.warmup && ok; ++i) ok = output_of(post(0, std::min(o.batch_size, n))).has_value();
    warmed = true;
    warmed_up.arrive_and_wait();
    for (int64_t request; ok && (request = next.fetch_add(1)) < per_pass * o.passes;) {
      const int64_t begin = request % per_pass * o.batch_size, rows = std::min(o.batch_size, n - begin);
      const auto sent = Clock::now();
      const httplib::Result r = post(begin, rows);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
      const auto output = output_of(r);
      if (!output) return;
      // The tensor follows a JSON header of any length, so it is copied out to be aligned.
      std::vector<float> data(output->size() / sizeof(float));
      std::memcpy(data.data(), output->data(), data.size() * sizeof(float));
      const int64_t classes = static_cast<int64_t>(data.size()) / rows;
      std::lock_guard<std::mutex> lock(mu);
      latencies.push_back(ms);
      for (int64_t i = 0; i < rows; ++i) {
        const float* first = data.data() + i * classes;
        predicted[static_cast<size_t>(begin + i)] = std::max_element(first, first + classes) - first;
      }
    }
  };
  std::vector<std::thread> clients;
  for (int c = 0; c < o.concurrency; ++c) clients.emplace_back(client_loop);
  warmed_up.arrive_and_wait();
  start = Clock::now();
  for (auto& t : clients) t.join();
  BRAID_CHECK(failure.empty(), "braid infer: ", failure);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!o.labels.empty()) {
    const std::vector<float> labels = io::load_idx_labels(o.labels).to_vector<float>();
    int64_t right = 0;
    for (int64_t i = 0; i < n; ++i)
      right += predicted[static_cast<size_t>(i)] == static_cast<int64_t>(labels[static_cast<size_t>(i)]);
    std::printf("accuracy=%.4f\n", static_cast<double>(right) / static_cast<double>(n));
  }
  std::printf(
      "%lld images in %zu requests of up to %lld, %d at once: %.0f images/s; latency p50 %.2f ms, p95 %.2f ms, "
      "p99 %.2f ms\n",
      static_cast<long long>(n * o.passes), latencies.size(), static_cast<long long>(o.batch_size), o.concurrency,
      static_cast<double>(n * o.passes) / seconds, percentile(latencies, 0.5), percentile(latencies, 0.95),
      percentile(latencies, 0.99));
  return 0;
}

}  // namespace braid::cli
