#include "braid/gluon/data/vision/datasets.h"

#include <filesystem>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/io/idx.h"

namespace braid::gluon::data::vision {
namespace {

// root/name or root/name.gz, whichever exists.
std::string find_file(const std::string& root, const std::string& name, const std::string& what,
                      const std::string& hint) {
  namespace fs = std::filesystem;
  for (const std::string& candidate : {name, name + ".gz"}) {
    fs::path p = fs::path(root) / candidate;
    if (fs::is_regular_file(p)) return p.string();
  }
  throw Error(cat(what, ": cannot find ", name, "(.gz) in '", root, "'; ", hint));
}

}  // namespace

std::string MNIST::default_root() {
  if (auto dir = env_str({"BRAID_MNIST_DIR"})) return *dir;
  if (auto home = env_str({"MXNET_HOME"})) return *home + "/datasets/mnist";
  return env_str({"HOME"}).value_or(".") + "/.mxnet/datasets/mnist";
}

MNIST::MNIST(const std::string& root, bool train, SampleFn transform)
    : MNIST(root, train, std::move(transform), "MNIST",
            "put the four MNIST files train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte "
            "and t10k-labels-idx1-ubyte (gzipped or not, from http://yann.lecun.com/exdb/mnist/) in that folder, "
            "or pass their folder as root (default: $BRAID_MNIST_DIR, $MXNET_HOME/datasets/mnist or "
            "~/.mxnet/datasets/mnist)") {}

MNIST::MNIST(const std::string& root, bool train, SampleFn transform, const std::string& what,
             const std::string& hint) {
  const std::string prefix = train ? "train" : "t10k";
  std::string image_file = find_file(root, prefix + "-images-idx3-ubyte", what, hint);
  std::string label_file = find_file(root, prefix + "-labels-idx1-ubyte", what, hint);
  NDArray images = io::load_idx(image_file), labels = io::load_idx(label_file);
  BRAID_CHECK(images.ndim() == 3, what, ": ", image_file, " holds an array of shape ", images.shape(),
              ", not images (N, rows, cols)");
  BRAID_CHECK(labels.ndim() == 1 && labels.shape()[0] == images.shape()[0], what, ": ", label_file, " holds ",
              labels.shape(), " labels for the ", images.shape()[0], " images of ", image_file,
              "; the two files do not belong together");
  images_ = images.reshape({images.shape()[0], images.shape()[1], images.shape()[2], 1});  // HWC, as MXNet
  labels_ = labels.astype(DType::Int32);
  DatasetPtr samples = std::make_shared<ArrayDataset>(images_, labels_);
  inner_ = transform ? samples->transform(std::move(transform)) : samples;
}

std::string FashionMNIST::default_root() { return io::fashion_mnist_dir(); }

FashionMNIST::FashionMNIST(const std::string& root, bool train, SampleFn transform)
    : MNIST(root, train, std::move(transform), "FashionMNIST",
            "install the Debian package dataset-fashion-mnist (apt-get install dataset-fashion-mnist, or "
            "scripts/install-deps.sh), which puts the files in /usr/share/datasets/fashion-mnist, or pass the "
            "folder holding them as root (or set BRAID_FASHION_MNIST_DIR)") {}

}  // namespace braid::gluon::data::vision
