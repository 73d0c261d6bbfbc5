#pragma once
/// MNIST and Fashion-MNIST (MXNet's gluon.data.vision.MNIST / FashionMNIST), read from the four
/// IDX files in a folder, gzipped or not:
///   train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz]   (train = true, 60000 samples)
///   t10k-images-idx3-ubyte[.gz],  t10k-labels-idx1-ubyte[.gz]    (train = false, 10000 samples)
/// Sample i is {image, label}: image uint8 (28, 28, 1) (HWC), label int32 of shape (), as in MXNet
/// 1.x. Each file is loaded once into one array; samples are views of it.
#include <string>

#include "braid/gluon/data/dataset.h"

namespace braid::gluon::data::vision {

class MNIST : public Dataset {
 public:
  /// Where MNIST is looked for by default: $BRAID_MNIST_DIR, else $MXNET_HOME/datasets/mnist, else
  /// ~/.mxnet/datasets/mnist (where MXNet downloads it).
  static std::string default_root();

  /// `transform`, when given, is applied to every sample on access (MXNet's transform(data, label)).
  explicit MNIST(const std::string& root = default_root(), bool train = true, SampleFn transform = nullptr);

  int64_t size() const override { return inner_->size(); }
  Sample get(int64_t i) const override { return inner_->get(i); }
  Batch get_batch(const std::vector<int64_t>& indices) const override { return inner_->get_batch(indices); }

  /// All images, uint8 (N, 28, 28, 1), and all labels, int32 (N,).
  const NDArray& images() const { return images_; }
  const NDArray& labels() const { return labels_; }

 protected:
  /// `what` names the data set in errors; `missing_hint` says how to get the files.
  MNIST(const std::string& root, bool train, SampleFn transform, const std::string& what,
        const std::string& missing_hint);

 private:
  NDArray images_, labels_;
  DatasetPtr inner_;
};

class FashionMNIST : public MNIST {
 public:
  /// io::fashion_mnist_dir(): $BRAID_FASHION_MNIST_DIR, else where Debian's dataset-fashion-mnist
  /// puts the files (/usr/share/datasets/fashion-mnist).
  static std::string default_root();

  explicit FashionMNIST(const std::string& root = default_root(), bool train = true, SampleFn transform = nullptr);
};

}  // namespace braid::gluon::data::vision
