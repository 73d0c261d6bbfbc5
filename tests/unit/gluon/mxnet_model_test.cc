// A CNN trained and exported by MXNet 1.6 Gluon (fixtures/mxnet/mnist-*), rebuilt with Braid's
// layers: the file holds full names ("arg:hybridsequential9_conv0_weight"), which MXNet loads with
// ParameterDict.load (Block.load_parameters would prepend the block's prefix a second time, in
// MXNet as here), and the network classifies the MNIST test set as well as it did in MXNet. A
// wrong layout, a transposed weight or a misnamed parameter would fall to chance.
#include <gtest/gtest.h>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/nn.h"
#include "braid/io/idx.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/reduce.h"

namespace braid::gluon {
namespace {

const std::string kFixtures = BRAID_FIXTURES_DIR;

TEST(MxnetModel, GluonExportedCnnLoadsAndClassifiesMnist) {
  nn::HybridSequential net("hybridsequential9_");
  {
    auto scope = net.name_scope();
    net.add(std::make_shared<nn::Conv2D>(10, 5, nn::ConvOptions{.activation = "tanh"}));
    net.add(std::make_shared<nn::MaxPool2D>(2));
    net.add(std::make_shared<nn::Conv2D>(25, 5, nn::ConvOptions{.activation = "tanh"}));
    net.add(std::make_shared<nn::MaxPool2D>(2));
    net.add(std::make_shared<nn::Dense>(20, "tanh"));
    net.add(std::make_shared<nn::Dense>(10, "tanh"));
  }
  EXPECT_THROW(net.load_parameters(kFixtures + "/mnist-0035.params"), Error);  // as MXNet: prefix doubled
  net.collect_params().load(kFixtures + "/mnist-0035.params");
  EXPECT_EQ(net.collect_params()["hybridsequential9_dense0_weight"]->shape(), Shape({20, 400}));

  NDArray images = io::load_idx_images(kFixtures + "/mnist-t10k-images-idx3-ubyte.gz");
  NDArray labels = io::load_idx_labels(kFixtures + "/mnist-t10k-labels-idx1-ubyte.gz");
  ASSERT_EQ(images.shape(), Shape({10000, 1, 28, 28}));
  autograd::PauseScope predict;
  double correct = 0;
  for (int64_t b = 0; b < 10000; b += 1000) {
    NDArray pred = nd::argmax(net(images.slice(b, b + 1000)), 1);
    correct += nd::sum(pred == labels.slice(b, b + 1000)).scalar<float>();
  }
  EXPECT_NEAR(correct / 10000, 0.9903, 2e-4);  // what an independent implementation gives (fixtures README)
}

}  // namespace
}  // namespace braid::gluon
