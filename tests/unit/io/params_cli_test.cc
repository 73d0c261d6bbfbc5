// Runs the built `braid params show` on the fixtures and on damaged files (exit code 2, the file
// named on stderr), the damaged ones under an address-space limit.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>

#include "common/cli_runner.h"
#include "common/sanitizers.h"
#include "params_test_util.h"

namespace braid::test {
namespace {

std::string shell_quoted(const std::string& path) { return "'" + path + "'"; }

TEST(ParamsCli, ShowsTheLinregCheckpoint) {
  auto r = braid_cli("params show " + shell_quoted(fixture("sagemaker-linreg-model-0000.params")));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "arg:fc1_weight float32 (1, 2)\narg:fc1_bias float32 (1,)\n");
  EXPECT_EQ(r.err, "");
}

TEST(ParamsCli, ShowsTheMnistModel) {
  auto r = braid_cli("params show " + shell_quoted(fixture("mnist-0035.params")));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find("arg:hybridsequential9_conv1_weight")),
            "arg:hybridsequential9_conv0_weight float32 (10, 1, 5, 5)\n"
            "arg:hybridsequential9_conv0_bias float32 (10,)\n");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 8);
}

TEST(ParamsCli, UnnamedArraysAreShownByIndex) {
  auto r = braid_cli("params show " + shell_quoted(fixture("legacy_ndarray.v0")));
  EXPECT_EQ(r.code, 0) << r.err;
  std::string want;
  for (int i = 0; i < 6; ++i) want += std::to_string(i) + " float32 (128,)\n";
  EXPECT_EQ(r.out, want);
}

TEST(ParamsCli, CorruptFileExitsWithCode2AndNamesIt) {
  auto path = (scratch_dir() / "cut.params").string();
  write_file_bytes(path, read_file_bytes(fixture("mnist-0035.params")).substr(0, 1000));
  auto r = braid_cli("params show " + shell_quoted(path));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(path + ": truncated at byte"), std::string::npos) << r.err;
}

TEST(ParamsCli, MissingFileExitsWithCode2) {
  auto path = (scratch_dir() / "absent.params").string();
  auto r = braid_cli("params show " + shell_quoted(path));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
}

// Corrupt counts and dims that would ask for terabytes: rejected before allocating, so the
// process stays well inside 1 GiB of address space and exits through the normal error path.
TEST(ParamsCli, HugeCountsFailCleanlyUnderAMemoryLimit) {
  const std::vector<std::string> files = {
      Bytes().header(1ULL << 40).u32(0).str(),
      Bytes().header(1).u32(0xF993FAC9).i32(0).i32(2).i64(1LL << 38).i64(4).i32(1).i32(0).i32(0).str(),
      Bytes().header(1).u32(0xF993FAC9).i32(0).i32(0x7fffffff).str(),
      Bytes().header(1).u32(0).u64(1).u64(1ULL << 45).str(),
  };
  auto dir = scratch_dir();
  for (size_t i = 0; i < files.size(); ++i) {
    auto path = (dir / ("huge" + std::to_string(i) + ".params")).string();
    write_file_bytes(path, files[i]);
    auto r = braid_cli("params show " + shell_quoted(path), one_gib_memory_limit());
    EXPECT_EQ(r.code, 2) << i << ": " << r.err;
    EXPECT_NE(r.err.find(path + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("byte"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace braid::test
