// MXNet's Gluon crash course ("Train the neural network") in Braid C++: LeNet on Fashion-MNIST with
// Sequential, Xavier, DataLoader, SoftmaxCrossEntropyLoss, autograd::RecordScope and Trainer, then
// save_parameters. Each Python line has its counterpart here, in the same order.
//
//   build/bin/gluon_lenet [--epochs 10] [--limit N]     (--limit: train and test on N images only)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/vision/datasets.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/nn.h"
#include "braid/gluon/trainer.h"
#include "braid/init/init.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/reduce.h"

using namespace braid;
using namespace braid::gluon;
namespace transforms = data::vision::transforms;

// (output.argmax(axis=1) == label.astype('float32')).mean().asscalar()
double acc(const NDArray& output, const NDArray& label) {
  return nd::mean(nd::argmax(output, 1) == label.astype(DType::Float32)).scalar<float>();
}

data::DatasetPtr fashion_mnist(bool train, int64_t limit) {
  data::DatasetPtr ds = std::make_shared<data::vision::FashionMNIST>(data::vision::FashionMNIST::default_root(), train);
  if (limit > 0 && limit < ds->size()) ds = ds->take(limit);
  transforms::Compose transformer({transforms::ToTensor(), transforms::Normalize({0.13}, {0.31})});
  return ds->transform_first(transformer);
}

int run(int argc, char** argv) {
  int epochs = 10;
  int64_t limit = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--epochs") == 0)
      epochs = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--limit") == 0)
      limit = std::atoll(argv[i + 1]);
  }
  const int64_t batch_size = 256;
  data::DataLoader train_data(fashion_mnist(true, limit),
                              {.batch_size = batch_size, .shuffle = true, .num_workers = 2});
  data::DataLoader valid_data(fashion_mnist(false, limit), {.batch_size = batch_size, .num_workers = 2});

  nn::Sequential net;
  {
    auto scope = net.name_scope();
    net.add(std::make_shared<nn::Conv2D>(6, 5, nn::ConvOptions{.activation = "relu"}));
    net.add(std::make_shared<nn::MaxPool2D>(2, nn::PoolOptions{.strides = 2}));
    net.add(std::make_shared<nn::Conv2D>(16, 3, nn::ConvOptions{.activation = "relu"}));
    net.add(std::make_shared<nn::MaxPool2D>(2, nn::PoolOptions{.strides = 2}));
    net.add(std::make_shared<nn::Flatten>());
    net.add(std::make_shared<nn::Dense>(120, "relu"));
    net.add(std::make_shared<nn::Dense>(84, "relu"));
    net.add(std::make_shared<nn::Dense>(10));
  }
  net.initialize(std::make_shared<init::Xavier>());
  loss::SoftmaxCrossEntropyLoss softmax_cross_entropy;
  Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", "0.1"}});

  for (int epoch = 0; epoch < epochs; ++epoch) {
    double train_loss = 0, train_acc = 0, valid_acc = 0;
    const auto tic = std::chrono::steady_clock::now();
    for (const auto& batch : train_data) {
      const NDArray& data = batch[0];
      const NDArray& label = batch[1];
      NDArray output, loss;
      {
        autograd::RecordScope record;
        output = net(data);
        loss = softmax_cross_entropy(output, label);
      }
      loss.backward();
      trainer.step(batch_size);
      train_loss += nd::mean(loss).scalar<float>();
      train_acc += acc(output, label);
    }
    for (const auto& batch : valid_data) valid_acc += acc(net(batch[0]), batch[1]);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - tic).count();
    const auto n_train = static_cast<double>(train_data.size()), n_valid = static_cast<double>(valid_data.size());
    std::printf("Epoch %d: loss %.3f, train acc %.3f, test acc %.3f, in %.1f sec\n", epoch, train_loss / n_train,
                train_acc / n_train, valid_acc / n_valid, secs);
    std::fflush(stdout);
  }
  net.save_parameters("net.params");
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Error& e) {
    std::fprintf(stderr, "gluon_lenet: %s\n", e.what());
    return 1;
  }
}
