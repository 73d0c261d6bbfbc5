#include "braid/gluon/model_zoo/vision/vgg.h"

#include <map>

#include "braid/base/error.h"
#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/batch_norm.h"
#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/dropout.h"
#include "braid/gluon/nn/pooling.h"

namespace braid::gluon::model_zoo::vision {

VGG::VGG(const std::vector<int64_t>& layers, const std::vector<int64_t>& filters, int64_t classes, bool batch_norm,
         std::optional<std::string> prefix)
    : Classifier("VGG", std::move(prefix)) {
  using namespace nn;
  BRAID_CHECK(layers.size() == filters.size(), "VGG: ", layers.size(), " stages but ", filters.size(),
              " filter counts; give one per stage");
  auto scope = name_scope();
  const auto conv_init = std::make_shared<init::Xavier>("gaussian", "out", 2.0);
  const auto dense_init = std::make_shared<init::Normal>();
  for (size_t stage = 0; stage < layers.size(); ++stage) {
    for (int64_t i = 0; i < layers[stage]; ++i) {
      features_->add(
          std::make_shared<Conv2D>(filters[stage], 3, ConvOptions{.padding = 1, .weight_initializer = conv_init}));
      if (batch_norm) features_->add(std::make_shared<BatchNorm>());
      features_->add(std::make_shared<Activation>("relu"));
    }
    features_->add(std::make_shared<MaxPool2D>(2, PoolOptions{.strides = 2}));
  }
  for (int i = 0; i < 2; ++i) {
    features_->add(std::make_shared<Dense>(4096, DenseOptions{.activation = "relu", .weight_initializer = dense_init}));
    features_->add(std::make_shared<Dropout>(0.5));
  }
  set_output(std::make_shared<Dense>(classes, DenseOptions{.weight_initializer = dense_init}));
}

std::shared_ptr<VGG> make_vgg(int num_layers, int64_t classes, bool batch_norm, std::optional<std::string> prefix) {
  static const std::map<int, std::vector<int64_t>> layers{
      {11, {1, 1, 2, 2, 2}}, {13, {2, 2, 2, 2, 2}}, {16, {2, 2, 3, 3, 3}}, {19, {2, 2, 4, 4, 4}}};
  auto it = layers.find(num_layers);
  BRAID_CHECK(it != layers.end(), "Invalid number of layers: ", num_layers, ". Options are 11, 13, 16, 19");
  return std::make_shared<VGG>(it->second, std::vector<int64_t>{64, 128, 256, 512, 512}, classes, batch_norm,
                               std::move(prefix));
}

}  // namespace braid::gluon::model_zoo::vision
