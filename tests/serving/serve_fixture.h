#pragma once
// What the tests of braid serve share: a repository with the MNIST fixture, a `braid serve`
// process on a free port with an HTTP client, the fixture's test images and an inference request
// for them (test helper).
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "braid/io/idx.h"
#include "braid/ndarray/ndarray.h"
#include "common/processes.h"

namespace braid::test {

namespace fs = std::filesystem;
using json = nlohmann::json;
inline const std::string kFixtures = BRAID_FIXTURES_DIR;

// A repository with the MNIST fixture as model "mnist", version 1 (with a config) and 2 (without).
inline std::string make_repository() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::path(::testing::TempDir()) / (std::string("braid_serve_") + info->name());
  fs::remove_all(dir);
  for (const char* v : {"1", "2"}) {
    fs::create_directories(dir / "mnist" / v);
    fs::copy_file(kFixtures + "/mnist-symbol.json", dir / "mnist" / v / "model-symbol.json");
    fs::copy_file(kFixtures + "/mnist-0035.params", dir / "mnist" / v / "model-0035.params");
  }
  std::ofstream(dir / "mnist" / "1" / "config.json")
      << R"({"inputs": [{"name": "data", "datatype": "FP32", "shape": [1, 28, 28]}], "max_batch_size": 8})";
  return dir.string();
}

struct Server {
  int port = free_port();
  std::unique_ptr<Process> process;
  httplib::Client client{"127.0.0.1", port};

  explicit Server(const std::string& repository, std::vector<std::string> more = {}) {
    std::vector<std::string> argv = {
        BRAID_BINARY_DIR "/bin/braid", "serve", "--model-repository", repository, "--http-port", std::to_string(port)};
    argv.insert(argv.end(), more.begin(), more.end());
    process = std::make_unique<Process>(argv, std::map<std::string, std::string>{}, repository + "/serve.log");
    for (int i = 0; i < 400 && !client.Get("/v2/health/live"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  json get(const std::string& path, int status = 200) {
    auto r = client.Get(path);
    EXPECT_TRUE(r) << path;
    if (!r) return {};
    EXPECT_EQ(r->status, status) << path << ": " << r->body;
    return json::parse(r->body);
  }
  json post(const std::string& path, const std::string& body, int status = 200, httplib::Headers headers = {}) {
    auto r = client.Post(path, headers, body, "application/json");
    EXPECT_TRUE(r) << path;
    if (!r) return {};
    EXPECT_EQ(r->status, status) << path << ": " << r->body.substr(0, 300);
    return json::parse(r->body);
  }
};

// Waits up to `seconds` for `done()`; whether it came.
template <class Fn>
bool wait_until(Fn done, double seconds = 30) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// A metric's value in the server's /metrics (`series`: its name and labels), -1 when absent.
inline double metric(int port, const std::string& series) {
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/metrics");
  const auto at = r ? r->body.find(series + " ") : std::string::npos;
  return at == std::string::npos ? -1 : std::stod(r->body.substr(at + series.size() + 1));
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline NDArray test_images(int64_t n) {
  return io::load_idx_images(kFixtures + "/mnist-t10k-images-idx3-ubyte.gz").slice(0, n);
}

inline json infer_body(const NDArray& images) {
  return {{"id", "req-7"},
          {"inputs",
           {{{"name", "data"},
             {"datatype", "FP32"},
             {"shape", images.shape().dims()},
             {"data", images.to_vector<float>()}}}}};
}

}  // namespace braid::test
