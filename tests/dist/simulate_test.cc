// braid simulate as the workers of real jobs: dist_sync under braid launch (with and without
// 2-bit compression) and horovod under its MPI launcher. After the run each worker checks its
// weights against every worker's gradients of every round (a lost or repeated gradient fails it
// with exit status 2), and reports steps no shorter than the compute they wait for.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dist/job.h"

namespace braid::test {
namespace {

const std::string kBraidCli = BRAID_BINARY_DIR "/bin/braid";

struct SimulateCase {
  std::string name;
  std::vector<std::string> launch, simulate;  // braid launch's options, braid simulate's extra ones
};

void PrintTo(const SimulateCase& c, std::ostream* out) { *out << c.name; }

class Simulate : public ::testing::TestWithParam<SimulateCase> {};

TEST_P(Simulate, EveryWorkerEndsWithEveryRoundsGradientsAndSlowerThanItsCompute) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("braid_simulate_" + GetParam().name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string figures = (dir / "figures.json").string();
  std::vector<std::string> argv = {kBraidCli, "launch"};
  argv.insert(argv.end(), GetParam().launch.begin(), GetParam().launch.end());
  for (const char* arg : {"--", kBraidCli.c_str(), "simulate", "--model", "lenet", "--step-ms", "20", "--steps", "5",
                          "--warmup", "1", "--json"})
    argv.push_back(arg);
  argv.push_back(figures);
  argv.insert(argv.end(), GetParam().simulate.begin(), GetParam().simulate.end());
  Process job(argv, {{"DMLC_PS_ROOT_PORT", std::to_string(free_port())}}, (dir / "job.log").string());
  ASSERT_EQ(job.wait(120), std::optional<int>(0)) << read((dir / "job.log").string());
  std::istringstream lines(read(figures));
  std::vector<int> workers;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json f = nlohmann::json::parse(line);
    workers.push_back(f["worker"]);
    EXPECT_EQ(f["workers"], 2);
    // LeNet's parameters, float32: (20*25 + 20) + (50*20*25 + 50) + (128*800 + 128) + (10*128 + 10).
    EXPECT_EQ(f["bytes"], 129388 * 4);
    EXPECT_GE(f["step_ms"].get<double>(), 20.0) << line;
    EXPECT_GT(f["efficiency"].get<double>(), 0.0) << line;
    EXPECT_LE(f["efficiency"].get<double>(), 1.0) << line;
  }
  std::sort(workers.begin(), workers.end());
  EXPECT_EQ(workers, (std::vector<int>{0, 1}));
}

INSTANTIATE_TEST_SUITE_P(
    Stores, Simulate,
    ::testing::Values(SimulateCase{"dist_sync", {"-n", "2", "-s", "1"}, {}},
                      SimulateCase{"two_bit", {"-n", "2", "-s", "2"}, {"--compression", "2bit"}},
                      SimulateCase{"horovod", {"--launcher", "mpi", "-n", "2", "-s", "0"}, {"--kvstore", "horovod"}}),
    [](const auto& info) { return info.param.name; });

TEST(SimulateErrors, AStoreOfOneMachineIsRefused) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "braid_simulate_local";
  std::filesystem::create_directories(dir);
  Process run({kBraidCli, "simulate", "--model", "lenet", "--kvstore", "local"}, {}, (dir / "out.log").string());
  EXPECT_EQ(run.wait(60), std::optional<int>(2));
  EXPECT_NE(read((dir / "out.log").string()).find("--kvstore local is not a distributed store"), std::string::npos)
      << read((dir / "out.log").string());
}

}  // namespace
}  // namespace braid::test
