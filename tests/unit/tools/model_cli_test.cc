// braid eval, braid predict and braid symbol show on MXNet's files.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/cli_runner.h"

namespace braid {
namespace {

const std::string kDir = BRAID_FIXTURES_DIR;
const std::string kModel = "--symbol " + kDir + "/mnist-symbol.json --params " + kDir + "/mnist-0035.params --images " +
                           kDir + "/mnist-t10k-images-idx3-ubyte.gz";

TEST(EvalCli, MxnetCnnOnMnistGivesTheReferenceAccuracy) {
  auto r = test::braid_cli("eval " + kModel + " --labels " + kDir + "/mnist-t10k-labels-idx1-ubyte.gz --batch-size 256");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "accuracy=0.9903\n");  // what an independent PyTorch implementation gives
  // Normalisation is applied: a huge mean drives every tanh to saturation and the accuracy down.
  auto shifted = test::braid_cli("eval " + kModel + " --labels " + kDir + "/mnist-t10k-labels-idx1-ubyte.gz --mean 50");
  ASSERT_EQ(shifted.code, 0) << shifted.err;
  EXPECT_NE(shifted.out, "accuracy=0.9903\n");
}

TEST(PredictCli, WritesNumpyOutputsThatNumpyReads) {
  auto dir = std::filesystem::path(::testing::TempDir()) / "braid_predict";
  std::filesystem::create_directories(dir);
  const auto npy = (dir / "out.npy").string();
  auto r = test::braid_cli("predict " + kModel + " --batch-size 3000 --output " + npy);
  ASSERT_EQ(r.code, 0) << r.err;
  // NumPy reads it; its argmax against the labels gives eval's accuracy.
  std::string script =
      "import numpy, gzip; y = numpy.load('" + npy + "'); "
      "l = numpy.frombuffer(gzip.open('" + kDir + "/mnist-t10k-labels-idx1-ubyte.gz').read()[8:], numpy.uint8); "
      "print(y.shape, y.dtype, '%.4f' % (y.argmax(1) == l).mean())";
  auto py = test::run_command("/usr/bin/python3 -c \"" + script + "\"");
  ASSERT_EQ(py.code, 0) << py.err;
  EXPECT_EQ(py.out, "(10000, 10) float32 0.9903\n");
  std::filesystem::remove_all(dir);
}

TEST(SymbolShowCli, TableWithShapes) {
  auto r = test::braid_cli("symbol show " + kDir + "/mnist-symbol.json --shape data=1,1,28,28");
  ASSERT_EQ(r.code, 0) << r.err;
  // Row 3: index, node, op, inputs, shape, in columns.
  auto row = r.out.substr(r.out.find("\n3 ") + 1);
  row = row.substr(0, row.find('\n'));
  std::vector<std::string> cells;
  for (size_t pos = 0; pos < row.size();) {
    size_t end = row.find("  ", pos);
    cells.push_back(row.substr(pos, end - pos));
    pos = row.find_first_not_of(' ', end == std::string::npos ? row.size() : end);
    if (pos == std::string::npos) break;
  }
  EXPECT_EQ(cells, (std::vector<std::string>{"3", "hybridsequential9_conv0_fwd", "Convolution",
                                             "data, hybridsequential9_conv0_weight, hybridsequential9_conv0_bias",
                                             "(1, 10, 24, 24)"}))
      << row;
  EXPECT_NE(r.out.find("hybridsequential9_dense0_weight    variable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(20, 400)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("19 nodes, 9 arguments, 0 auxiliary states, outputs: hybridsequential9_dense1_tanh_fwd_output"),
            std::string::npos)
      << r.out;
  auto old = test::braid_cli("symbol show " + kDir + "/save_000800.json");
  ASSERT_EQ(old.code, 0) << old.err;
  EXPECT_NE(old.out.find("batchnorm0_moving_var"), std::string::npos);  // added as MXNet 0.9 adds it
}

TEST(ModelCli, BadInputIsAOneLineError) {
  auto wrong_params = test::braid_cli("eval --symbol " + kDir + "/mnist-symbol.json --params " + kDir +
                                      "/sagemaker-linreg-model-0000.params --images " + kDir +
                                      "/mnist-t10k-images-idx3-ubyte.gz --labels " + kDir +
                                      "/mnist-t10k-labels-idx1-ubyte.gz");
  EXPECT_EQ(wrong_params.code, 2);
  EXPECT_NE(wrong_params.err.find("parameters of another model"), std::string::npos) << wrong_params.err;
  auto missing = test::braid_cli("symbol show /nonexistent-symbol.json");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("braid: error: "), std::string::npos);
  auto bad_shape = test::braid_cli("symbol show " + kDir + "/mnist-symbol.json --shape data=1,x");
  EXPECT_EQ(bad_shape.code, 2);
  EXPECT_NE(bad_shape.err.find("--shape takes NAME=D0,D1"), std::string::npos) << bad_shape.err;
  auto labels_as_images = test::braid_cli("eval " + kModel + " --labels " + kDir + "/mnist-t10k-images-idx3-ubyte.gz");
  EXPECT_EQ(labels_as_images.code, 2);
}

}  // namespace
}  // namespace braid
