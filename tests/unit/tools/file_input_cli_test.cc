// The CLI reads models from regular files only, and fast: a FIFO or /dev/zero given to
// `braid params show` or `braid symbol show` fails at once with a message (a FIFO used to hang
// them, /dev/zero to be read until memory ran out), and a 200,000-node chain is shown in full.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "common/cli_runner.h"
#include "common/processes.h"
#include "common/relu_chain.h"

namespace braid::test {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = fs::path(::testing::TempDir()) / (std::string("braid_file_input_") + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

struct BoundedRun {
  std::optional<int> status;
  std::string output;  // stdout and stderr
};

/// Runs `braid args...`, waiting at most `seconds` for it to exit.
BoundedRun braid_within(const std::vector<std::string>& args, const fs::path& dir, double seconds) {
  std::vector<std::string> argv = {BRAID_BINARY_DIR "/bin/braid"};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p(argv, {}, (dir / "braid.log").string());
  auto status = p.wait(seconds);
  return {status, slurp(dir / "braid.log")};
}

std::string refusal(const std::string& path, const char* kind) {
  return "braid: error: " + path + " is not a regular file (" + kind +
         "): Braid reads models, arrays and configs from regular files only\n";
}

TEST(FileInputCli, FifoIsRefusedAtOnce) {
  const fs::path dir = scratch_dir();
  const std::string fifo = (dir / "model.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"params", "show", fifo}, std::vector<std::string>{"symbol", "show", fifo}}) {
    BoundedRun r = braid_within(args, dir, 30);
    EXPECT_EQ(r.status, std::optional<int>(2)) << args[0] << ": still running or failed otherwise";
    EXPECT_EQ(r.output, refusal(fifo, "a FIFO"));
  }
}

TEST(FileInputCli, DevZeroIsRefused) {
  const fs::path dir = scratch_dir();
  for (const char* command : {"params", "symbol"}) {
    BoundedRun r = braid_within({command, "show", "/dev/zero"}, dir, 30);
    EXPECT_EQ(r.status, std::optional<int>(2)) << command;
    EXPECT_EQ(r.output, refusal("/dev/zero", "a character device"));
  }
}

TEST(FileInputCli, LongChainIsShownInFull) {
  const fs::path dir = scratch_dir();
  const std::string path = (dir / "chain-symbol.json").string();
  std::ofstream(path) << relu_chain_json(200000);
  BoundedRun r = braid_within({"symbol", "show", path, "--shape", "data=2,3"}, dir, 300);
  ASSERT_EQ(r.status, std::optional<int>(0)) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("\n200000  r200000  relu      r199999  (2, 3)\n"), std::string::npos);
  EXPECT_TRUE(r.output.ends_with("\n200001 nodes, 1 arguments, 0 auxiliary states, outputs: r200000_output\n"));
}

}  // namespace
}  // namespace braid::test
