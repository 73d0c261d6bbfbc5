// braid train on images: Fashion-MNIST rendered here as an image folder (one PNG folder per
// class), packed by braid im2rec into a .rec file, trained on with a small network and with a
// model of the zoo.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "braid/image/codec.h"
#include "braid/io/idx.h"
#include "common/cli_runner.h"

namespace braid::test {
namespace {

namespace fs = std::filesystem;

// The first `count` images of the Fashion-MNIST `split` ("train" or "t10k") as
// root/class_<label>/<i>.png, grayscale.
void render(const fs::path& root, const std::string& split, int64_t count) {
  const std::string dir = io::fashion_mnist_dir() + "/" + split;
  const auto images = io::load_idx(dir + "-images-idx3-ubyte.gz").to_vector<uint8_t>();
  const auto labels = io::load_idx(dir + "-labels-idx1-ubyte.gz").to_vector<uint8_t>();
  for (int64_t i = 0; i < count; ++i) {
    const fs::path folder = root / ("class_" + std::to_string(labels[size_t(i)]));
    fs::create_directories(folder);
    image::Image im{28, 28, 1, std::vector<uint8_t>(images.begin() + i * 784, images.begin() + (i + 1) * 784)};
    std::ofstream(folder / (std::to_string(i) + ".png"), std::ios::binary) << image::encode(im, ".png", 1);
  }
}

// The folders and record files, made once by the first test that asks (inside a test, where
// braid_cli can name its output files after it).
const fs::path& image_data() {
  static const fs::path dir = [] {
    const fs::path d = fs::path(::testing::TempDir()) / ("braid_train_images_" + std::to_string(::getpid()));
    fs::remove_all(d);
    render(d / "train", "train", 2000);
    render(d / "val", "t10k", 500);
    for (const char* split : {"train", "val"}) {  // braid im2rec: the list, then the .rec and .idx
      const std::string prefix = (d / split).string() + "_rec", root = (d / split).string();
      EXPECT_EQ(braid_cli("im2rec --list --recursive '" + prefix + "' '" + root + "'").code, 0);
      const auto packed = braid_cli("im2rec --pass-through '" + prefix + "' '" + root + "'");
      EXPECT_EQ(packed.code, 0) << packed.err;
    }
    return d;
  }();
  return dir;
}

// LeNet on 1x28x28 crops of the folder and of the .rec file: both reach far above chance (0.1).
TEST(TrainImages, FolderAndRecordFileTrainLeNet) {
  const fs::path& dir = image_data();
  for (const std::string kind : {"folder", "rec"}) {
    const bool rec = kind == "rec";
    const fs::path log = dir / ("lenet_" + kind + ".json");
    const std::string train = rec ? (dir / "train_rec.rec").string() : (dir / "train").string();
    const std::string val = rec ? (dir / "val_rec.rec").string() : (dir / "val").string();
    auto r = braid_cli(
        "train --model lenet --image-shape 1,28,28 --epochs 3 --batch-size 32 --num-workers 2 "
        "--data-train '" +
        train + "' --data-val '" + val + "' --json-log '" + log.string() + "'" + (rec ? " --classes 10" : ""));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("lenet on images in " + train + ": 2000 training and 500 test images"), std::string::npos)
        << r.out;
    const auto recs = read_json_lines(log);
    ASSERT_EQ(recs.size(), 4u);
    EXPECT_LT(recs[2]["train_loss"].get<double>(), recs[0]["train_loss"].get<double>()) << kind;
    EXPECT_GT(recs[3]["test_acc"].get<double>(), 0.6) << kind;
  }
}

// A model of the zoo (ResNet-18 v1) on 3x32x32 crops, exported for braid serve: its training loss
// falls, it beats chance, and the export holds MXNet's names.
TEST(TrainImages, ZooModelTrainsAndExports) {
  const fs::path& dir = image_data();
  const fs::path log = dir / "resnet.json", save = dir / "resnet" / "net";
  auto r = braid_cli(
      "train --model resnet18_v1 --image-shape 3,32,32 --epochs 2 --batch-size 50 --lr 0.05 "
      "--data-train '" +
      (dir / "train").string() + "' --data-val '" + (dir / "val").string() + "' --json-log '" + log.string() +
      "' --save '" + save.string() + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto recs = read_json_lines(log);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_LT(recs[1]["train_loss"].get<double>(), recs[0]["train_loss"].get<double>());
  EXPECT_GT(recs[2]["test_acc"].get<double>(), 0.3);
  const std::string symbol = slurp(save.string() + "-symbol.json");
  EXPECT_NE(symbol.find("resnetv10_stage4_conv3_weight"), std::string::npos);
  EXPECT_NE(symbol.find("resnetv10_dense0_bias"), std::string::npos);
}

TEST(TrainImages, MissingPiecesAreClearErrors) {
  const fs::path& dir = image_data();
  auto no_classes = braid_cli("train --model lenet --data-train '" + (dir / "train_rec.rec").string() +
                              "' --data-val '" + (dir / "val_rec.rec").string() + "'");
  EXPECT_NE(no_classes.code, 0);
  EXPECT_NE(no_classes.err.find("give --classes N"), std::string::npos) << no_classes.err;
  auto no_val = braid_cli("train --model lenet --data-train '" + (dir / "train").string() + "'");
  EXPECT_NE(no_val.code, 0);
  EXPECT_NE(no_val.err.find("--data-val is missing"), std::string::npos) << no_val.err;
  auto bad_shape = braid_cli("train --image-shape 3,x,32 --data-train '" + (dir / "train").string() + "' --data-val '" +
                             (dir / "val").string() + "'");
  EXPECT_NE(bad_shape.code, 0);
  EXPECT_NE(bad_shape.err.find("--image-shape 3,x,32"), std::string::npos) << bad_shape.err;
  auto unknown = braid_cli("train --model resnet18_v3 --epochs 1");
  EXPECT_NE(unknown.code, 0);
  EXPECT_NE(unknown.err.find("did you mean resnet18_v1"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace braid::test
