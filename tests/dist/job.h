#pragma once
// A parameter-server job of real processes on 127.0.0.1 for the dist tests: the scheduler and
// servers run `braid server`, workers are processes of the test's choice (or nodes in the test
// process, worker_config); each process logs to a file under the test's temporary folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/processes.h"
#include "kvstore/ps/config.h"

namespace braid::test {

inline std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Job {
  int port = test::free_port();
  int servers, workers;
  std::map<std::string, std::string> extra;
  std::string dir;

  Job(int s, int w, std::map<std::string, std::string> more = {}) : servers(s), workers(w), extra(std::move(more)) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = (std::filesystem::path(::testing::TempDir()) / (std::string("braid_ps_") + info->name())).string();
    std::filesystem::create_directories(dir);
  }
  std::map<std::string, std::string> env(const std::string& role) const {
    std::map<std::string, std::string> e = {{"DMLC_ROLE", role},
                                            {"DMLC_PS_ROOT_URI", "127.0.0.1"},
                                            {"DMLC_PS_ROOT_PORT", std::to_string(port)},
                                            {"DMLC_NUM_SERVER", std::to_string(servers)},
                                            {"DMLC_NUM_WORKER", std::to_string(workers)},
                                            {"DMLC_NODE_HOST", "127.0.0.1"}};
    for (const auto& [k, v] : extra) e[k] = v;
    return e;
  }
  /// A worker process running `argv` with the job's environment.
  std::unique_ptr<Process> start_worker(const std::vector<std::string>& argv, int index) const {
    return std::make_unique<Process>(argv, env("worker"), log_of("worker", index));
  }
  std::string log_of(const std::string& role, int index) const {
    return dir + "/" + role + std::to_string(index) + ".log";
  }
  std::unique_ptr<Process> start(const std::string& role, int index) const {
    return std::make_unique<Process>(std::vector<std::string>{BRAID_BINARY_DIR "/bin/braid", "server"}, env(role),
                                     log_of(role, index));
  }
  kv::ps::Config worker_config(const std::string& secret = "") const {
    kv::ps::Config c;
    c.role = kv::ps::Role::Worker;
    c.root_uri = "127.0.0.1";
    c.root_port = port;
    c.num_servers = servers;
    c.num_workers = workers;
    c.host = "127.0.0.1";
    auto get = [&](const char* k, double d) { return extra.count(k) ? std::stod(extra.at(k)) : d; };
    c.heartbeat_interval_s = get("PS_HEARTBEAT_INTERVAL", 1);
    c.heartbeat_timeout_s = get("PS_HEARTBEAT_TIMEOUT", 10);
    c.connect_timeout_s = get("BRAID_PS_CONNECT_TIMEOUT", 120);
    c.secret = secret;
    return c;
  }
};

}  // namespace braid::test
