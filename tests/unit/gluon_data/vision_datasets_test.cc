// MNIST / FashionMNIST: the real Fashion-MNIST of dataset-fashion-mnist, IDX files written by the
// test (plain, not gzipped), and the errors for a missing folder.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/vision/datasets.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/io/idx.h"
#include "braid/ndarray/elemwise.h"

namespace braid::test::gluon_data {
namespace {

using namespace gluon::data;
namespace fs = std::filesystem;

// Runs a Python command with Debian's python3 and returns its stdout.
std::string python(const std::string& code) {
  std::string cmd = "/usr/bin/python3 -c \"" + code + "\"";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

TEST(FashionMNIST, TrainAndTestSetsMatchTheFiles) {
  auto train = std::make_shared<vision::FashionMNIST>();
  vision::FashionMNIST test(vision::FashionMNIST::default_root(), false);
  EXPECT_EQ(train->size(), 60000);
  EXPECT_EQ(test.size(), 10000);
  Sample s = train->get(0);
  EXPECT_EQ(s[0].shape(), Shape({28, 28, 1}));
  EXPECT_EQ(s[0].dtype(), DType::UInt8);
  EXPECT_EQ(s[1].shape(), Shape({}));
  EXPECT_EQ(s[1].dtype(), DType::Int32);
  EXPECT_EQ(s[1].scalar<int32_t>(), 9);  // the first training sample is an ankle boot
  // Independent readings: io::load_idx_labels and Python's gzip module.
  const std::string dir = vision::FashionMNIST::default_root();
  NDArray labels = io::load_idx_labels(dir + "/train-labels-idx1-ubyte.gz");
  EXPECT_EQ(train->labels().to_vector<float>(), labels.to_vector<float>());
  std::string py = python("import gzip; d = gzip.open('" + dir +
                          "/train-images-idx3-ubyte.gz').read()[16:16 + 784 * 2]; "
                          "l = gzip.open('" +
                          dir +
                          "/t10k-labels-idx1-ubyte.gz').read()[8:13]; "
                          "print(sum(d[:784]), sum(d[784:]), *l)");
  auto img0 = s[0].to_vector<int64_t>(), img1 = train->get(1)[0].to_vector<int64_t>();
  std::string ours = std::to_string(std::accumulate(img0.begin(), img0.end(), int64_t{0})) + " " +
                     std::to_string(std::accumulate(img1.begin(), img1.end(), int64_t{0}));
  for (int64_t i = 0; i < 5; ++i) ours += " " + std::to_string(test.get(i)[1].scalar<int32_t>());
  EXPECT_EQ(py, ours + "\n");
}

TEST(FashionMNIST, LoaderBatchesWithToTensor) {
  auto train = std::make_shared<vision::FashionMNIST>();
  DataLoader loader(train->transform_first(vision::transforms::ToTensor()), {.batch_size = 64});
  EXPECT_EQ(loader.size(), 938);
  auto it = loader.begin();
  EXPECT_EQ((*it)[0].shape(), Shape({64, 1, 28, 28}));
  EXPECT_EQ((*it)[0].dtype(), DType::Float32);
  EXPECT_EQ((*it)[1].shape(), Shape({64}));
  EXPECT_EQ((*it)[1].dtype(), DType::Int32);
  EXPECT_EQ((*it)[1].to_vector<int32_t>()[0], 9);
}

void write_idx(const fs::path& path, const std::vector<uint32_t>& dims, const std::vector<uint8_t>& data) {
  std::ofstream f(path, std::ios::binary);
  auto be = [&](uint32_t v) {
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    f.write(b, 4);
  };
  be(0x800u + static_cast<uint32_t>(dims.size()));
  for (uint32_t d : dims) be(d);
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

TEST(MNIST, ReadsUncompressedFilesAndAppliesTheTransform) {
  fs::path dir = fs::temp_directory_path() / ("braid_mnist_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<uint8_t> pixels(3 * 2 * 2);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(10 * i);
  write_idx(dir / "t10k-images-idx3-ubyte", {3, 2, 2}, pixels);
  write_idx(dir / "t10k-labels-idx1-ubyte", {3}, {4, 0, 7});
  vision::MNIST m(dir.string(), false, [](const Sample& s) { return Sample{s[0], s[1] + 1}; });
  EXPECT_EQ(m.size(), 3);
  EXPECT_EQ(m.images().shape(), Shape({3, 2, 2, 1}));
  EXPECT_EQ(m.get(1)[0].to_vector<int32_t>(), (std::vector<int32_t>{40, 50, 60, 70}));
  EXPECT_EQ(m.get(2)[1].scalar<int32_t>(), 8);
  write_idx(dir / "train-images-idx3-ubyte", {3, 2, 2}, pixels);
  write_idx(dir / "train-labels-idx1-ubyte", {2}, {1, 2});
  try {
    vision::MNIST bad(dir.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("do not belong together"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(MNIST, MissingFilesSayWhatToDo) {
  try {
    vision::FashionMNIST("/nonexistent/fashion");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("train-images-idx3-ubyte"), std::string::npos) << m;
    EXPECT_NE(m.find("/nonexistent/fashion"), std::string::npos) << m;
    EXPECT_NE(m.find("dataset-fashion-mnist"), std::string::npos) << m;
  }
  try {
    vision::MNIST("/nonexistent/mnist", false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("t10k-images-idx3-ubyte"), std::string::npos) << m;
    EXPECT_NE(m.find("put the four MNIST files"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace braid::test::gluon_data
