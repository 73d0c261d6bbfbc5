// Trains a LeNet-style CNN on the real Fashion-MNIST with Braid's operators and prints loss and
// accuracy. Each layer is an MXNet operator run forward with nd::invoke and backward with
// nd::invoke_backward; SGD with momentum updates the weights. Everything runs on the engine.
//
//   fashion_mnist_lenet [--epochs N] [--batch B] [--lr X] [--limit N]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/io/idx.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"

using braid::NDArray;
using braid::Shape;
namespace nd = braid::nd;

namespace {

// One operator with its learnable arguments (weight, bias) and what its backward needs.
struct Layer {
  std::string op;
  braid::op::AttrMap attrs;
  std::vector<NDArray> params, grads, momentum;
  std::vector<NDArray> inputs, outputs;  // of the last forward

  NDArray forward(const NDArray& x, const std::vector<NDArray>& extra = {}) {
    inputs = {x};
    inputs.insert(inputs.end(), params.begin(), params.end());
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    outputs = nd::invoke_all(op, inputs, attrs);
    return outputs[0];
  }
  // Returns the gradient of the layer's input (None when not wanted).
  NDArray backward(const NDArray& out_grad, bool want_input_grad) {
    NDArray dx = want_input_grad ? NDArray(inputs[0].shape()) : NDArray();
    std::vector<NDArray> in_grads = {dx};
    in_grads.insert(in_grads.end(), grads.begin(), grads.end());
    in_grads.resize(inputs.size());  // no gradient for labels
    nd::invoke_backward(op, attrs, {out_grad}, inputs, outputs, in_grads);
    return dx;
  }
  void sgd(double lr, double momentum_factor, double wd) {
    for (size_t i = 0; i < params.size(); ++i) {
      momentum[i] *= momentum_factor;
      momentum[i] -= (grads[i] + params[i] * wd) * lr;
      params[i] += momentum[i];
    }
  }
};

// Xavier-uniform weights, zero bias.
Layer make_layer(const std::string& op, braid::op::AttrMap attrs, const Shape& weight, int64_t fan_in,
                 int64_t fan_out) {
  Layer l{op, std::move(attrs)};
  double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  l.params = {nd::random_uniform(-bound, bound, weight), nd::zeros(Shape({weight[0]}))};
  for (const auto& p : l.params) {
    l.grads.push_back(nd::zeros(p.shape()));
    l.momentum.push_back(nd::zeros(p.shape()));
  }
  return l;
}

struct Net {
  Layer conv1 = make_layer("Convolution", {{"kernel", "(5, 5)"}, {"num_filter", "20"}}, Shape({20, 1, 5, 5}), 25, 500);
  Layer act1{"Activation", {{"act_type", "relu"}}};
  Layer pool1{"Pooling", {{"pool_type", "max"}, {"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}};
  Layer conv2 = make_layer("Convolution", {{"kernel", "(5, 5)"}, {"num_filter", "50"}}, Shape({50, 20, 5, 5}), 500, 1250);
  Layer act2{"Activation", {{"act_type", "relu"}}};
  Layer pool2{"Pooling", {{"pool_type", "max"}, {"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}};
  Layer fc1 = make_layer("FullyConnected", {{"num_hidden", "128"}}, Shape({128, 800}), 800, 128);
  Layer act3{"Activation", {{"act_type", "relu"}}};
  Layer fc2 = make_layer("FullyConnected", {{"num_hidden", "10"}}, Shape({10, 128}), 128, 10);
  Layer out{"SoftmaxOutput", {{"normalization", "batch"}}};

  std::vector<Layer*> layers() {
    return {&conv1, &act1, &pool1, &conv2, &act2, &pool2, &fc1, &act3, &fc2, &out};
  }
  NDArray forward(const NDArray& x, const NDArray& label) {
    NDArray h = x;
    auto all = layers();
    for (size_t i = 0; i + 1 < all.size(); ++i) h = all[i]->forward(h);
    return out.forward(h, {label});
  }
  void backward() {
    auto all = layers();
    NDArray g = nd::ones(out.outputs[0].shape());  // SoftmaxOutput ignores its output gradient
    for (size_t i = all.size(); i-- > 0;) g = all[i]->backward(g, i > 0);
  }
  void update(double lr, double momentum, double wd) {
    for (Layer* l : {&conv1, &conv2, &fc1, &fc2}) l->sgd(lr, momentum, wd);
  }
};

// Cross-entropy and number correct of a batch of probabilities.
std::pair<double, int> score(const NDArray& prob, const NDArray& label) {
  auto p = prob.to_vector<float>();
  auto y = label.to_vector<float>();
  int64_t classes = prob.shape()[1];
  double loss = 0;
  int correct = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const float* row = &p[i * static_cast<size_t>(classes)];
    int truth = static_cast<int>(y[i]);
    loss -= std::log(std::max(row[truth], 1e-12f));
    int best = 0;
    for (int k = 1; k < classes; ++k)
      if (row[k] > row[best]) best = k;
    correct += best == truth;
  }
  return {loss, correct};
}

void progress(int epoch, int epochs, int64_t done, int64_t total, double loss, double acc, double secs) {
  const int width = 30;
  int filled = static_cast<int>(width * done / total);
  std::fprintf(stderr, "\repoch %d/%d [%s%s] %3d%% %lld/%lld  loss %.4f  acc %.4f  %.1fs", epoch, epochs,
               std::string(static_cast<size_t>(filled), '=').c_str(),
               std::string(static_cast<size_t>(width - filled), ' ').c_str(),
               static_cast<int>(100 * done / total), static_cast<long long>(done),
               static_cast<long long>(total), loss, acc, secs);
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 2, batch = 64;
  double lr = 0.05;
  int64_t limit = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--epochs") epochs = std::atoi(argv[i + 1]);
    else if (k == "--batch") batch = std::atoi(argv[i + 1]);
    else if (k == "--lr") lr = std::atof(argv[i + 1]);
    else if (k == "--limit") limit = std::atoll(argv[i + 1]);
    else {
      std::cerr << "unknown option " << k << "\nusage: fashion_mnist_lenet [--epochs N] [--batch B] [--lr X] [--limit N]\n";
      return 2;
    }
  }
  try {
    const std::string dir = braid::io::fashion_mnist_dir();
    NDArray train_x = braid::io::load_idx_images(dir + "/train-images-idx3-ubyte.gz");
    NDArray train_y = braid::io::load_idx_labels(dir + "/train-labels-idx1-ubyte.gz");
    NDArray test_x = braid::io::load_idx_images(dir + "/t10k-images-idx3-ubyte.gz");
    NDArray test_y = braid::io::load_idx_labels(dir + "/t10k-labels-idx1-ubyte.gz");
    int64_t n = limit > 0 ? std::min(limit, train_x.shape()[0]) : train_x.shape()[0];
    std::printf("Fashion-MNIST: %lld training images, %lld test images, LeNet (conv20-pool-conv50-pool-fc128-fc10)\n",
                static_cast<long long>(n), static_cast<long long>(test_x.shape()[0]));
    nd::seed(1);
    Net net;
    auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      double loss = 0;
      int64_t correct = 0, seen = 0;
      for (int64_t b = 0; b + batch <= n; b += batch) {
        NDArray x = train_x.slice(b, b + batch), y = train_y.slice(b, b + batch);
        NDArray prob = net.forward(x, y);
        net.backward();
        net.update(lr, 0.9, 1e-4);
        auto [l, c] = score(prob, y);
        loss += l;
        correct += c;
        seen += batch;
        if ((b / batch) % 10 == 0 || b + 2 * batch > n)
          progress(epoch, epochs, seen, n / batch * batch, loss / static_cast<double>(seen),
                   static_cast<double>(correct) / static_cast<double>(seen), elapsed());
      }
      std::fprintf(stderr, "\n");
    }
    int64_t test_correct = 0, tn = test_x.shape()[0];
    for (int64_t b = 0; b < tn; b += 1000) {
      int64_t e = std::min(b + 1000, tn);
      NDArray prob = net.forward(test_x.slice(b, e), test_y.slice(b, e));
      test_correct += score(prob, test_y.slice(b, e)).second;
    }
    std::printf("test accuracy: %.4f (%lld/%lld) after %d epoch(s), %.1f s\n",
                static_cast<double>(test_correct) / static_cast<double>(tn), static_cast<long long>(test_correct),
                static_cast<long long>(tn), epochs, elapsed());
  } catch (const braid::Error& e) {
    std::cerr << "\nfashion_mnist_lenet: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
