#pragma once
// What the benches that start processes of their own share: starting a program with extra
// environment variables, the folder of the running bench (where the other programs are built),
// and the median of timed rounds.
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace bench {

/// Starts argv[0] with this process's environment plus `env` ("NAME=value"); exits on failure.
inline pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<std::string> all_env;
  for (char** e = environ; *e; ++e) all_env.push_back(*e);
  all_env.insert(all_env.end(), env.begin(), env.end());
  std::vector<char*> a, e;
  std::vector<std::string> args = argv;
  for (auto& s : args) a.push_back(s.data());
  a.push_back(nullptr);
  for (auto& s : all_env) e.push_back(s.data());
  e.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, a[0], nullptr, nullptr, a.data(), e.data()) != 0) {
    std::perror("posix_spawn");
    std::exit(1);
  }
  return pid;
}

/// The folder of this executable (build/bin: the braid CLI and the other benches are there).
inline std::string self_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string p(buf, static_cast<size_t>(std::max<ssize_t>(n, 0)));
  return p.substr(0, p.rfind('/'));
}

/// The DMLC_* variables of a process of role `role` in a parameter-server job on 127.0.0.1
/// whose scheduler listens on `port`.
inline std::vector<std::string> ps_job_env(int port, const std::string& role, int servers, int workers) {
  return {"DMLC_PS_ROOT_URI=127.0.0.1",
          "DMLC_PS_ROOT_PORT=" + std::to_string(port),
          "DMLC_NUM_SERVER=" + std::to_string(servers),
          "DMLC_NUM_WORKER=" + std::to_string(workers),
          "DMLC_NODE_HOST=127.0.0.1",
          "DMLC_ROLE=" + role};
}

/// Makes this process a worker of that job (for kv::create).
inline void become_ps_worker(int port, int servers, int workers) {
  for (const auto& kv : ps_job_env(port, "worker", servers, workers)) putenv(strdup(kv.c_str()));
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace bench
