// "Dive into Deep Learning" §4.2, a multilayer perceptron from scratch, in Braid C++: the parameters
// are plain NDArrays with attach_grad, the forward pass is written with NDArray operators, the
// loss is recorded with autograd::RecordScope, and SGD updates the parameters by hand.
//
//   build/bin/scratch_mlp [--epochs 10] [--lr 0.5] [--limit N]   (--limit: first N images only)
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/vision/datasets.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/gluon/loss.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/matrix.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"

using namespace braid;
using namespace braid::gluon;

// d2l.load_data_fashion_mnist: batches of (batch, 1, 28, 28) float images in [0, 1] and labels.
data::DataLoader load_data_fashion_mnist(int64_t batch_size, bool train, int64_t limit) {
  data::DatasetPtr ds = std::make_shared<data::vision::FashionMNIST>(data::vision::FashionMNIST::default_root(), train);
  if (limit > 0 && limit < ds->size()) ds = ds->take(limit);
  return data::DataLoader(ds->transform_first(data::vision::transforms::ToTensor()),
                          {.batch_size = batch_size, .shuffle = train, .num_workers = 2});
}

struct Params {
  NDArray W1, b1, W2, b2;
  std::vector<NDArray*> all() { return {&W1, &b1, &W2, &b2}; }
};

NDArray net(const NDArray& X, const Params& p) {
  NDArray H = nd::relu(nd::dot(X.reshape({-1, 784}), p.W1) + p.b1);
  return nd::dot(H, p.W2) + p.b2;
}

// d2l.sgd: param[:] = param - lr * param.grad / batch_size
void sgd(Params& params, double lr, int64_t batch_size) {
  for (NDArray* p : params.all()) *p -= p->grad() * (lr / static_cast<double>(batch_size));
}

double evaluate_accuracy(data::DataLoader& data_iter, const Params& params) {
  double correct = 0, n = 0;
  for (const auto& batch : data_iter) {
    NDArray y = batch[1].astype(DType::Float32);
    correct += nd::sum(nd::argmax(net(batch[0], params), 1) == y).scalar<float>();
    n += static_cast<double>(y.size());
  }
  return correct / n;
}

int run(int argc, char** argv) {
  int num_epochs = 10;
  double lr = 0.5;
  int64_t limit = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--epochs") == 0)
      num_epochs = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--lr") == 0)
      lr = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--limit") == 0)
      limit = std::atoll(argv[i + 1]);
  }
  const int64_t batch_size = 256, num_inputs = 784, num_outputs = 10, num_hiddens = 256;
  auto train_iter = load_data_fashion_mnist(batch_size, true, limit);
  auto test_iter = load_data_fashion_mnist(batch_size, false, limit);

  nd::seed(0);
  Params params{nd::random_normal(0, 0.01, Shape({num_inputs, num_hiddens})), nd::zeros(Shape({num_hiddens})),
                nd::random_normal(0, 0.01, Shape({num_hiddens, num_outputs})), nd::zeros(Shape({num_outputs}))};
  for (NDArray* p : params.all()) p->attach_grad();
  loss::SoftmaxCrossEntropyLoss loss;

  for (int epoch = 0; epoch < num_epochs; ++epoch) {
    double train_l_sum = 0, train_acc_sum = 0, n = 0;
    for (const auto& batch : train_iter) {
      const NDArray& X = batch[0];
      NDArray y = batch[1].astype(DType::Float32), y_hat, l;
      {
        autograd::RecordScope record;
        y_hat = net(X, params);
        l = nd::sum(loss(y_hat, y));
      }
      l.backward();
      sgd(params, lr, X.shape()[0]);
      train_l_sum += l.scalar<float>();
      train_acc_sum += nd::sum(nd::argmax(y_hat, 1) == y).scalar<float>();
      n += static_cast<double>(y.size());
    }
    std::printf("epoch %d, loss %.4f, train acc %.3f, test acc %.3f\n", epoch + 1, train_l_sum / n, train_acc_sum / n,
                evaluate_accuracy(test_iter, params));
    std::fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Error& e) {
    std::fprintf(stderr, "scratch_mlp: %s\n", e.what());
    return 1;
  }
}
