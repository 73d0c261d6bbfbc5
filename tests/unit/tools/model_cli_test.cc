// braid eval, braid predict and braid symbol show on MXNet's files.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "braid/io/file.h"
#include "braid/io/npy.h"
#include "braid/io/params.h"
#include "braid/ndarray/invoke.h"
#include "braid/serving/model.h"
#include "common/cli_runner.h"
#include "common/face_like_net.h"

namespace braid {
namespace {

const std::string kDir = BRAID_FIXTURES_DIR;
const std::string kModel = "--symbol " + kDir + "/mnist-symbol.json --params " + kDir + "/mnist-0035.params --images " +
                           kDir + "/mnist-t10k-images-idx3-ubyte.gz";

TEST(EvalCli, MxnetCnnOnMnistGivesTheReferenceAccuracy) {
  auto r =
      test::braid_cli("eval " + kModel + " --labels " + kDir + "/mnist-t10k-labels-idx1-ubyte.gz --batch-size 256");
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
  std::string script = "import numpy, gzip; y = numpy.load('" + npy +
                       "'); "
                       "l = numpy.frombuffer(gzip.open('" +
                       kDir +
                       "/mnist-t10k-labels-idx1-ubyte.gz').read()[8:], numpy.uint8); "
                       "print(y.shape, y.dtype, '%.4f' % (y.argmax(1) == l).mean())";
  auto py = test::run_command("/usr/bin/python3 -c \"" + script + "\"");
  ASSERT_EQ(py.code, 0) << py.err;
  EXPECT_EQ(py.out, "(10000, 10) float32 0.9903\n");
  std::filesystem::remove_all(dir);
}

// Colour images, as real models take them: a 3-channel idx file (N, H, W, 3) of raw pixels and the
// same pixels as .npy arrays (uint8 NHWC, float32 NCHW) give the outputs the model computes in
// this process on the NCHW floats.
TEST(PredictCli, ColourImagesFromIdxAndNpy) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "braid_predict_colour";
  std::filesystem::create_directories(dir);
  Symbol net = test::face_like_net(false);
  const auto params = test::face_params(net);
  std::vector<std::pair<std::string, NDArray>> named;
  for (const auto& [name, a] : params.arg) named.emplace_back("arg:" + name, a);
  for (const auto& [name, a] : params.aux) named.emplace_back("aux:" + name, a);
  net.save((dir / "face-symbol.json").string());
  io::save((dir / "face-0000.params").string(), named);
  const int64_t n = 5, side = test::kFaceSide;
  std::vector<uint8_t> pixels(static_cast<size_t>(n * side * side * 3));
  std::mt19937 rng(4);
  for (auto& p : pixels) p = static_cast<uint8_t>(rng() & 0xff);
  std::string idx = {0, 0, 8, 4};
  for (int64_t d : {n, side, side, int64_t{3}})
    for (int shift : {24, 16, 8, 0}) idx += static_cast<char>((d >> shift) & 0xff);
  idx.append(pixels.begin(), pixels.end());
  io::write_file_atomically((dir / "faces.idx").string(), idx);
  NDArray nhwc = nd::array<uint8_t>(pixels, Shape{n, side, side, 3});
  io::save_npy((dir / "faces_nhwc.npy").string(), nhwc);
  NDArray nchw = nd::invoke1("transpose", {nhwc.astype(DType::Float32)}, {{"axes", "(0, 3, 1, 2)"}});
  io::save_npy((dir / "faces_nchw.npy").string(), nchw);
  serving::Model model((dir / "face-symbol.json").string(), (dir / "face-0000.params").string());
  const std::vector<float> want = model.run({{"data", nchw}})[0].to_vector<float>();
  const std::string files = "--symbol " + (dir / "face-symbol.json").string() + " --params " +
                            (dir / "face-0000.params").string() + " --batch-size 2 --output " +
                            (dir / "out.npy").string() + " --images ";
  for (const std::string input : {"faces.idx --scale 1", "faces_nhwc.npy --scale 1", "faces_nchw.npy",
                                  "faces.idx --scale 2 --mean 0,0,0 --std 2,2,2 --layout NHWC"}) {
    SCOPED_TRACE(input);
    auto r = test::braid_cli("predict " + files + (dir / input).string());
    ASSERT_EQ(r.code, 0) << r.err;
    NDArray out = io::load_npy((dir / "out.npy").string());
    ASSERT_EQ(out.shape(), (Shape{n, test::kFaceClasses}));
    const std::vector<float> got = out.to_vector<float>();
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5) << "element " << i;
  }
  // Per-channel values that do not match the channels.
  auto mismatch = test::braid_cli("predict " + files + (dir / "faces_nhwc.npy").string() + " --layout auto --mean 1,2");
  EXPECT_EQ(mismatch.code, 2);
  EXPECT_NE(mismatch.err.find("--mean has 2 values but the input has shape (5, 3, 16, 16)"), std::string::npos)
      << mismatch.err;
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
  auto wrong_params =
      test::braid_cli("eval --symbol " + kDir + "/mnist-symbol.json --params " + kDir +
                      "/sagemaker-linreg-model-0000.params --images " + kDir +
                      "/mnist-t10k-images-idx3-ubyte.gz --labels " + kDir + "/mnist-t10k-labels-idx1-ubyte.gz");
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
