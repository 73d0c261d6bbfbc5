// The programs of examples/ run on a slice of the real Fashion-MNIST, print what their MXNet
// originals print, and learn (test accuracy well above chance, loss falling).
#include <gtest/gtest.h>

#include <regex>

#include "common/cli_runner.h"

namespace braid::test {
namespace {

struct EpochLine {
  double loss, test_acc;
};

// Every line matching `pattern`, whose first group is the loss and second the test accuracy.
std::vector<EpochLine> epochs(const std::string& out, const std::regex& pattern) {
  std::vector<EpochLine> lines;
  for (std::sregex_iterator it(out.begin(), out.end(), pattern), end; it != end; ++it)
    lines.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  return lines;
}

TEST(Examples, GluonLenetLearnsAndSavesItsParameters) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "braid_example_gluon_lenet";
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / "net.params");
  auto r = run_binary("gluon_lenet", "--epochs 2 --limit 4000", "cd '" + dir.string() + "' && ");
  ASSERT_EQ(r.code, 0) << r.err;
  auto e =
      epochs(r.out, std::regex(R"(Epoch \d+: loss ([0-9.]+), train acc [0-9.]+, test acc ([0-9.]+), in [0-9.]+ sec)"));
  ASSERT_EQ(e.size(), 2u) << r.out;
  EXPECT_LT(e[1].loss, e[0].loss);
  EXPECT_GT(e[1].test_acc, 0.4) << r.out;  // chance is 0.1
  EXPECT_TRUE(std::filesystem::exists(dir / "net.params"));
}

// Two halves of an MLP on cpu(0) and cpu(1), unpipelined and with micro-batches: both learn.
TEST(Examples, ModelParallelMlpTrainsBothWays) {
  auto r = run_binary("model_parallel_mlp", "--batches 30 --batch 256 --micro-batches 4 --hidden 128");
  ASSERT_EQ(r.code, 0) << r.err;
  std::smatch m;
  for (const char* what : {R"(unpipelined \(1 slice\): [0-9]+ samples/s, loss ([0-9.]+))",
                           R"(pipelined \(4 micro-batches\): [0-9]+ samples/s, loss ([0-9.]+))"}) {
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(what))) << what << "\n" << r.out;
    EXPECT_LT(std::stod(m[1]), 1.5) << r.out;  // from ln(10) = 2.3 at the start
  }
  EXPECT_NE(r.out.find("speed-up"), std::string::npos);
}

TEST(Examples, ScratchMlpLearns) {
  auto r = run_binary("scratch_mlp", "--epochs 2 --limit 8000");
  ASSERT_EQ(r.code, 0) << r.err;
  auto e = epochs(r.out, std::regex(R"(epoch \d+, loss ([0-9.]+), train acc [0-9.]+, test acc ([0-9.]+))"));
  ASSERT_EQ(e.size(), 2u) << r.out;
  EXPECT_LT(e[1].loss, e[0].loss);
  EXPECT_GT(e[1].test_acc, 0.5) << r.out;
}

// Its small initial weights (scale 0.01, as in the book) keep the accuracy at chance for the first
// epochs, so this checks that it runs on both devices; MultiDevice.* in the autograd tests checks
// that its gradient summing equals the whole batch's gradient.
TEST(Examples, D2lMultiDeviceLenetRunsOnTwoDevices) {
  auto r = run_binary("d2l_multi_device_lenet", "--devices 2 --epochs 1 --limit 2048");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("running on: cpu(0) cpu(1)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(epoch 1, test acc 0\.[0-9]+, time [0-9.]+ sec)"))) << r.out;
}

}  // namespace
}  // namespace braid::test
