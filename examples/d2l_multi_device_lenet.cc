// "Dive into Deep Learning", multi-device training written by hand (the seed article
// 004_f8323131855a6f37): LeNet made of NDArray operators, parameters copied to each device with
// attach_grad, the batch split across the devices, one backward per device, gradients summed with
// a hand-written allreduce, and SGD by hand. Devices are cpu(0), cpu(1), ... here.
//
//   build/bin/d2l_multi_device_lenet [--devices 2] [--epochs 4] [--batch 256] [--lr 0.2] [--limit N]
//   (--limit: train and test on the first N images only)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "braid/autograd/autograd.h"
#include "braid/io/idx.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/indexing.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"

using namespace braid;
using Params = std::vector<NDArray>;

// Model parameters, initialized once on the CPU.
Params init_params() {
  const double scale = 0.01;
  return {nd::random_normal(0, scale, Shape({20, 1, 3, 3})),  nd::zeros(Shape({20})),
          nd::random_normal(0, scale, Shape({50, 20, 5, 5})), nd::zeros(Shape({50})),
          nd::random_normal(0, scale, Shape({800, 128})),     nd::zeros(Shape({128})),
          nd::random_normal(0, scale, Shape({128, 10})),      nd::zeros(Shape({10}))};
}

NDArray lenet(const NDArray& x, const Params& p) {
  auto conv = [](const NDArray& in, const NDArray& w, const NDArray& b, const char* kernel, const char* filters) {
    return nd::invoke1("Convolution", {in, w, b}, {{"kernel", kernel}, {"num_filter", filters}});
  };
  auto avg_pool = [](const NDArray& in) {
    return nd::invoke1("Pooling", {in}, {{"pool_type", "avg"}, {"kernel", "(2, 2)"}, {"stride", "(2, 2)"}});
  };
  NDArray h1 = avg_pool(nd::relu(conv(x, p[0], p[1], "(3, 3)", "20")));
  NDArray h2 = nd::invoke1("Flatten", {avg_pool(nd::relu(conv(h1, p[2], p[3], "(5, 5)", "50")))});
  NDArray h3 = nd::relu(nd::dot(h2, p[4]) + p[5]);
  return nd::dot(h3, p[6]) + p[7];
}

// Softmax cross-entropy per example (gluon.loss.SoftmaxCrossEntropyLoss with sparse labels).
NDArray loss(const NDArray& y_hat, const NDArray& y) { return -nd::pick(nd::invoke1("log_softmax", {y_hat}), y, -1); }

// Copies the parameters to `device` and attaches gradients to the copies.
Params get_params(const Params& params, Context device) {
  Params copies;
  for (const auto& p : params) {
    copies.push_back(p.copyto(device));
    copies.back().attach_grad();
  }
  return copies;
}

// Sums the arrays of every device into the first, then copies the sum back to the others.
void allreduce(std::vector<NDArray> data) {
  for (size_t i = 1; i < data.size(); ++i) data[0] += data[i].copyto(data[0].ctx());
  for (size_t i = 1; i < data.size(); ++i) data[0].copyto(data[i]);
}

// Splits the batch along axis 0, one equal part per device.
std::vector<NDArray> split_and_load(const NDArray& data, const std::vector<Context>& devices) {
  const int64_t n = data.shape()[0], k = static_cast<int64_t>(devices.size()), m = n / k;
  std::vector<NDArray> parts;
  for (int64_t i = 0; i < k; ++i) parts.push_back(data.slice(i * m, (i + 1) * m).as_in_context(devices[i]));
  return parts;
}

void sgd(Params& params, double lr, int64_t batch_size) {
  for (auto& p : params) p -= p.grad() * (lr / static_cast<double>(batch_size));
}

void train_batch(const NDArray& x, const NDArray& y, std::vector<Params>& device_params,
                 const std::vector<Context>& devices, double lr) {
  auto xs = split_and_load(x, devices), ys = split_and_load(y, devices);
  std::vector<NDArray> losses;
  {
    autograd::RecordScope record;  // the loss on each device
    for (size_t d = 0; d < devices.size(); ++d) losses.push_back(loss(lenet(xs[d], device_params[d]), ys[d]));
  }
  for (auto& l : losses) l.backward();  // back-propagation on each device
  for (size_t i = 0; i < device_params[0].size(); ++i) {
    std::vector<NDArray> grads;
    for (auto& p : device_params) grads.push_back(p[i].grad());
    allreduce(grads);
  }
  for (auto& p : device_params) sgd(p, lr, x.shape()[0]);  // the whole batch size
}

double evaluate_accuracy(const NDArray& images, const NDArray& labels, const Params& params, int64_t batch) {
  int64_t correct = 0, n = images.shape()[0];
  for (int64_t b = 0; b + batch <= n; b += batch) {
    NDArray pred = nd::argmax(lenet(images.slice(b, b + batch), params), 1);
    correct += static_cast<int64_t>(nd::sum(pred == labels.slice(b, b + batch)).scalar<float>());
  }
  return static_cast<double>(correct) / static_cast<double>(n / batch * batch);
}

int main(int argc, char** argv) {
  int num_devices = 2, epochs = 4;
  int64_t batch = 256;
  double lr = 0.2;
  int64_t limit = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--devices")
      num_devices = std::atoi(argv[i + 1]);
    else if (k == "--epochs")
      epochs = std::atoi(argv[i + 1]);
    else if (k == "--batch")
      batch = std::atoll(argv[i + 1]);
    else if (k == "--lr")
      lr = std::atof(argv[i + 1]);
    else if (k == "--limit")
      limit = std::atoll(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  try {
    const std::string dir = io::fashion_mnist_dir();
    NDArray train_x = io::load_idx_images(dir + "/train-images-idx3-ubyte.gz");
    NDArray train_y = io::load_idx_labels(dir + "/train-labels-idx1-ubyte.gz");
    NDArray test_x = io::load_idx_images(dir + "/t10k-images-idx3-ubyte.gz");
    NDArray test_y = io::load_idx_labels(dir + "/t10k-labels-idx1-ubyte.gz");
    if (limit > 0) {
      train_x = train_x.slice(0, std::min(limit, train_x.shape()[0]));
      train_y = train_y.slice(0, train_x.shape()[0]);
      test_x = test_x.slice(0, std::min(limit, test_x.shape()[0]));
      test_y = test_y.slice(0, test_x.shape()[0]);
    }
    std::vector<Context> devices;
    for (int d = 0; d < num_devices; ++d) devices.push_back(cpu(d));
    std::printf("running on:");
    for (auto c : devices) std::printf(" %s", c.str().c_str());
    std::printf("\n");

    nd::seed(0);
    Params params = init_params();
    std::vector<Params> device_params;
    for (auto c : devices) device_params.push_back(get_params(params, c));
    const int64_t n = train_x.shape()[0];
    for (int epoch = 0; epoch < epochs; ++epoch) {
      auto start = std::chrono::steady_clock::now();
      for (int64_t b = 0; b + batch <= n; b += batch) {
        train_batch(train_x.slice(b, b + batch), train_y.slice(b, b + batch), device_params, devices, lr);
        nd::waitall();  // as the book: without it the loop would queue the whole epoch, holding its memory
      }
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      double acc = evaluate_accuracy(test_x, test_y, device_params[0], batch);
      std::printf("epoch %d, test acc %.4f, time %.1f sec\n", epoch + 1, acc, secs);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
