// A LeNet in a HybridSequential (Conv2D 20 5x5 relu, MaxPool2D 2, Conv2D 50 5x5 relu, MaxPool2D 2,
// Dense 128 relu, Dense 10) with SoftmaxCrossEntropyLoss against PyTorch given the same weights:
// the forward output, the per-sample losses, every parameter gradient, and the output after one
// SGD step. The reference runs in float64 from the float32 values Braid uses.
#include <gtest/gtest.h>

#include "../gluon_test_util.h"
#include "braid/autograd/autograd.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/nn.h"
#include "braid/ndarray/elemwise.h"

namespace braid::gluon {
namespace {

using namespace test_util;

std::shared_ptr<nn::HybridSequential> lenet() {
  auto net = std::make_shared<nn::HybridSequential>();
  auto scope = net->name_scope();
  net->add(std::make_shared<nn::Conv2D>(20, 5, nn::ConvOptions{.activation = "relu"}));
  net->add(std::make_shared<nn::MaxPool2D>(2));
  net->add(std::make_shared<nn::Conv2D>(50, 5, nn::ConvOptions{.activation = "relu"}));
  net->add(std::make_shared<nn::MaxPool2D>(2));
  net->add(std::make_shared<nn::Dense>(128, "relu"));
  net->add(std::make_shared<nn::Dense>(10));
  return net;
}

const char* kScript = R"(import sys
import numpy as np
import torch
import torch.nn.functional as F
d = sys.argv[1]
def load(name, shape):
    return torch.from_numpy(np.fromfile(f"{d}/{name}.bin", dtype=np.float32).reshape(shape)).double()
def save(name, t):
    t.detach().double().numpy().tofile(f"{d}/{name}.out")
x = load("x", (4, 1, 28, 28))
label = load("label", (4,)).long()
shapes = [(20, 1, 5, 5), (20,), (50, 20, 5, 5), (50,), (128, 800), (128,), (10, 128), (10,)]
p = [load(f"p{i}", s).requires_grad_() for i, s in enumerate(shapes)]
def net(p):
    h = F.max_pool2d(F.relu(F.conv2d(x, p[0], p[1])), 2, 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, p[2], p[3])), 2, 2)
    h = F.relu(F.linear(h.flatten(1), p[4], p[5]))
    return F.linear(h, p[6], p[7])
out = net(p)
loss = F.cross_entropy(out, label, reduction="none")
loss.sum().backward()
save("out", out)
save("loss", loss)
for i, t in enumerate(p):
    save(f"grad{i}", t.grad)
with torch.no_grad():
    save("out2", net([t - 0.1 * t.grad for t in p]))
)";

// |a - b| <= 1e-4 * max(1, |b|) elementwise.
void expect_matches(const Values& got, const Values& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 * std::max(1.0, std::abs(want[i]))) << what << " element " << i;
}

TEST(LeNetAgainstTorch, ForwardBackwardAndOneStepMatch) {
  ASSERT_TRUE(TorchDir::torch_available()) << "/usr/bin/python3 cannot import torch and numpy; run "
                                              "scripts/install-deps.sh";
  auto net = lenet();
  const std::string p = net->prefix();
  EXPECT_EQ(net->collect_params().keys(),
            (std::vector<std::string>{p + "conv0_weight", p + "conv0_bias", p + "conv1_weight", p + "conv1_bias",
                                      p + "dense0_weight", p + "dense0_bias", p + "dense1_weight", p + "dense1_bias"}));
  net->initialize(std::make_shared<init::Xavier>());
  const NDArray x = random_array(Shape({4, 1, 28, 28}), 41, DType::Float32, 0, 1);
  const NDArray label = make(Shape({4}), {3, 0, 9, 5});
  loss::SoftmaxCrossEntropyLoss ce;
  NDArray out, l;
  {
    autograd::RecordScope rec;
    out = (*net)(x);
    l = ce(out, label);
  }
  l.backward();
  // Deferred shapes are complete after the first forward.
  EXPECT_EQ(net->collect_params()[p + "conv1_weight"]->shape(), Shape({50, 20, 5, 5}));
  EXPECT_EQ(net->collect_params()[p + "dense0_weight"]->shape(), Shape({128, 800}));

  TorchDir dir;
  dir.write("x.bin", x);
  dir.write("label.bin", label);
  std::vector<ParameterPtr> params;
  for (const auto& [name, param] : net->collect_params()) params.push_back(param);
  for (size_t i = 0; i < params.size(); ++i) dir.write("p" + std::to_string(i) + ".bin", params[i]->data());
  ASSERT_TRUE(dir.run(kScript)) << "the torch script failed";

  expect_matches(values(out), dir.read("out.out"), "output");
  expect_matches(values(l), dir.read("loss.out"), "loss");
  for (size_t i = 0; i < params.size(); ++i)
    expect_matches(values(params[i]->grad()), dir.read("grad" + std::to_string(i) + ".out"), params[i]->name());

  for (const auto& param : params) param->data() -= 0.1 * param->grad();
  expect_matches(values((*net)(x)), dir.read("out2.out"), "output after one SGD step");
}

}  // namespace
}  // namespace braid::gluon
