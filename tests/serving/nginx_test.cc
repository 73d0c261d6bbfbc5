// Several braid serve processes behind nginx (deploy/nginx-braid.conf, ports rewritten): braid
// infer through nginx classifies the MNIST test set at 0.9903 and both servers took requests.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "common/processes.h"

namespace braid::test {
namespace {

namespace fs = std::filesystem;
const std::string kFixtures = BRAID_FIXTURES_DIR;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool wait_until_up(int port) {
  httplib::Client c("127.0.0.1", port);
  for (int i = 0; i < 400; ++i) {
    if (auto r = c.Get("/v2/health/ready"); r && r->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

int64_t requests_served(int port) {
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/metrics");
  std::smatch m;
  const std::string body = r ? r->body : "";
  return std::regex_search(body, m, std::regex(R"(braid_inference_requests_total\{[^}]*\} (\d+))")) ? std::stoll(m[1])
                                                                                                    : 0;
}

TEST(ServeBehindNginx, RequestsSpreadOverTheServersAndClassifyTheTestSet) {
  if (!fs::exists("/usr/sbin/nginx")) GTEST_SKIP() << "nginx is not installed (scripts/install-deps.sh installs it)";
  const fs::path dir = fs::path(::testing::TempDir()) / "braid_nginx";
  fs::remove_all(dir);
  fs::create_directories(dir / "models" / "mnist" / "1");
  fs::create_directories(dir / "run" / "tmp");
  fs::copy_file(kFixtures + "/mnist-symbol.json", dir / "models/mnist/1/model-symbol.json");
  fs::copy_file(kFixtures + "/mnist-0035.params", dir / "models/mnist/1/model-0035.params");
  const int front = free_port(), a = free_port(), b = free_port();
  std::string conf = read_file(BRAID_SOURCE_DIR "/deploy/nginx-braid.conf");
  conf = std::regex_replace(conf, std::regex("127\\.0\\.0\\.1:8001"), "127.0.0.1:" + std::to_string(a));
  conf = std::regex_replace(conf, std::regex("127\\.0\\.0\\.1:8002"), "127.0.0.1:" + std::to_string(b));
  conf =
      std::regex_replace(conf, std::regex("listen 127\\.0\\.0\\.1:8000"), "listen 127.0.0.1:" + std::to_string(front));
  conf = std::regex_replace(conf, std::regex("worker_processes auto"), "worker_processes 1");
  std::ofstream(dir / "nginx.conf") << conf;

  auto server = [&](int port, const char* log) {
    return std::make_unique<Process>(
        std::vector<std::string>{BRAID_BINARY_DIR "/bin/braid", "serve", "--model-repository",
                                 (dir / "models").string(), "--http-port", std::to_string(port)},
        std::map<std::string, std::string>{}, (dir / log).string());
  };
  auto s1 = server(a, "serve1.log"), s2 = server(b, "serve2.log");
  ASSERT_TRUE(wait_until_up(a) && wait_until_up(b)) << read_file((dir / "serve1.log").string());
  Process nginx(
      {"/usr/sbin/nginx", "-c", (dir / "nginx.conf").string(), "-p", (dir / "run").string(), "-g", "daemon off;"}, {},
      (dir / "nginx.log").string());
  ASSERT_TRUE(wait_until_up(front)) << read_file((dir / "nginx.log").string())
                                    << read_file((dir / "run/error.log").string());
  Process client({BRAID_BINARY_DIR "/bin/braid", "infer", "--url", "http://127.0.0.1:" + std::to_string(front),
                  "--model", "mnist", "--images", kFixtures + "/mnist-t10k-images-idx3-ubyte.gz", "--labels",
                  kFixtures + "/mnist-t10k-labels-idx1-ubyte.gz", "--batch-size", "16", "--concurrency", "4"},
                 {}, (dir / "infer.log").string());
  EXPECT_EQ(client.wait(120), std::optional<int>(0)) << read_file((dir / "infer.log").string());
  EXPECT_NE(read_file((dir / "infer.log").string()).find("accuracy=0.9903"), std::string::npos)
      << read_file((dir / "infer.log").string());
  const int64_t on_a = requests_served(a), on_b = requests_served(b);
  EXPECT_EQ(on_a + on_b, 625);  // 10000 images in requests of 16
  EXPECT_GT(on_a, 0);
  EXPECT_GT(on_b, 0);
  kill(nginx.pid(), SIGQUIT);  // graceful: the master stops its workers before it exits
  EXPECT_TRUE(nginx.wait(15).has_value());
}

}  // namespace
}  // namespace braid::test
