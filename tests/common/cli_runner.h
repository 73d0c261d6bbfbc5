#pragma once
// Runs the built `braid` CLI or another built program in a shell and captures its exit code and
// output (test helper).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace braid::test {

struct CliResult {
  int code;  // exit status, or -1 when killed by a signal
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The objects of a file of one JSON object per line (braid train --json-log).
inline std::vector<nlohmann::json> read_json_lines(const std::filesystem::path& path) {
  std::istringstream lines(slurp(path));
  std::vector<nlohmann::json> objects;
  for (std::string line; std::getline(lines, line);) objects.push_back(nlohmann::json::parse(line));
  return objects;
}

/// Runs `command` (shell syntax) and captures its exit status and output.
inline CliResult run_command(const std::string& command) {
  // Per test, since CTest runs tests in parallel processes.
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::path(::testing::TempDir()) /
             (std::string("braid_cli_output_") + info->test_suite_name() + "_" + info->name());
  std::filesystem::create_directories(dir);
  const auto out = dir / "stdout", err = dir / "stderr";
  std::string cmd = command + " >'" + out.string() + "' 2>'" + err.string() + "'";
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

/// Runs build/bin/`binary` with `args` (shell syntax); `shell_prefix` runs before the binary in
/// the same shell (e.g. a ulimit, a cd or VAR=value).
inline CliResult run_binary(const std::string& binary, const std::string& args, const std::string& shell_prefix = "") {
  return run_command(shell_prefix + "exec '" BRAID_BINARY_DIR "/bin/" + binary + "' " + args);
}

/// Runs the `braid` CLI.
inline CliResult braid_cli(const std::string& args, const std::string& shell_prefix = "") {
  return run_binary("braid", args, shell_prefix);
}

}  // namespace braid::test
