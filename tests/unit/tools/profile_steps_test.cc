// braid profile steps: a trace's steps split into compute, waiting for the kvstore and the rest,
// and the kvstore's requests into wire, server work and server wait, on a trace written here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/cli_runner.h"

namespace braid::test {
namespace {

namespace fs = std::filesystem;

fs::path write_trace(const std::string& name, const std::string& events) {
  const fs::path path = fs::path(::testing::TempDir()) / name;
  std::ofstream(path) << R"({"traceEvents": [)" << events << "]}";
  return path;
}

// Two steps over 30 µs: operators run in [0, 10) and [20, 30), one pushpull is in flight in
// [5, 25) (the servers worked 4 µs and waited 6 µs for other workers).
TEST(ProfileSteps, SplitsTheStepsTimeIntoPartsThatAddUp) {
  const fs::path trace = write_trace("two_steps.json", R"(
    {"name": "Convolution", "cat": "operator", "ph": "X", "ts": 0, "dur": 10, "pid": 0, "tid": 0},
    {"name": "step", "cat": "braid train", "ph": "i", "ts": 1, "s": "p", "pid": -1, "tid": 1},
    {"name": "kvstore pushpull", "cat": "kvstore", "ph": "X", "ts": 5, "dur": 20, "pid": -2, "tid": 2,
     "args": {"key": 0, "bytes": 2048, "server_work_us": 4, "server_wait_us": 6}},
    {"name": "FullyConnected", "cat": "operator", "ph": "X", "ts": 20, "dur": 10, "pid": 0, "tid": 0},
    {"name": "step", "cat": "braid train", "ph": "i", "ts": 21, "s": "p", "pid": -1, "tid": 1})");
  const CliResult r = braid_cli("profile steps '" + trace.string() + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2 steps, 0.015 ms per step"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("operators running (compute)                        0.010 ms  66.7%"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("waiting for the kvstore (requests in flight)       0.005 ms  33.3%"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("waiting for data or the program                    0.000 ms   0.0%"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("kvstore pushpull: 0.5 per step, 1.0 KB per step, 0.010 ms in flight per step (summed over "
                       "keys): wire and queues 0.005, server work 0.002, server waiting for other workers 0.003"),
            std::string::npos)
      << r.out;
}

TEST(ProfileSteps, AFileThatIsNoTrainingTraceIsAClearError) {
  const CliResult none = braid_cli("profile steps '" + write_trace("no_steps.json", "").string() + "'");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("holds no training steps: write it with braid train --profile"), std::string::npos)
      << none.err;
  const fs::path other = fs::path(::testing::TempDir()) / "not_a_trace.json";
  std::ofstream(other) << "[1, 2]";
  const CliResult wrong = braid_cli("profile steps '" + other.string() + "'");
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.err.find("is not a profiler trace"), std::string::npos) << wrong.err;
}

}  // namespace
}  // namespace braid::test
