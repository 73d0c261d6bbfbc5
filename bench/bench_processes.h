#pragma once
// What the benches that start processes of their own share: starting a program with extra
// environment variables, the folder of the running bench (where the other programs are built),
// and the median of timed rounds.
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace bench
