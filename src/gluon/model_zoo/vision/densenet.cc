#include "braid/gluon/model_zoo/vision/densenet.h"

#include <map>

#include "braid/base/error.h"
#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/batch_norm.h"
#include "braid/gluon/nn/concurrent.h"
#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/dropout.h"
#include "braid/gluon/nn/flatten.h"
#include "braid/gluon/nn/pooling.h"

namespace braid::gluon::model_zoo::vision {
namespace {

using namespace nn;

void add_norm_relu(HybridSequential& out) {
  out.add(std::make_shared<BatchNorm>());
  out.add(std::make_shared<Activation>("relu"));
}

// The input concatenated with growth_rate new channels (bottleneck 1x1, then 3x3).
std::shared_ptr<HybridConcurrent> dense_layer(int64_t growth_rate, int64_t bn_size, double dropout) {
  auto new_features = std::make_shared<HybridSequential>("");
  add_norm_relu(*new_features);
  new_features->add(std::make_shared<Conv2D>(bn_size * growth_rate, 1, ConvOptions{.use_bias = false}));
  add_norm_relu(*new_features);
  new_features->add(std::make_shared<Conv2D>(growth_rate, 3, ConvOptions{.padding = 1, .use_bias = false}));
  if (dropout != 0) new_features->add(std::make_shared<Dropout>(dropout));
  auto out = std::make_shared<HybridConcurrent>(1, "");
  out->add(std::make_shared<Identity>());
  out->add(new_features);
  return out;
}

std::shared_ptr<HybridSequential> dense_block(int64_t layers, int64_t bn_size, int64_t growth_rate, double dropout,
                                              size_t stage) {
  auto out = std::make_shared<HybridSequential>(cat("stage", stage, "_"));
  auto scope = out->name_scope();
  for (int64_t i = 0; i < layers; ++i) out->add(dense_layer(growth_rate, bn_size, dropout));
  return out;
}

std::shared_ptr<HybridSequential> transition(int64_t channels) {
  auto out = std::make_shared<HybridSequential>("");
  add_norm_relu(*out);
  out->add(std::make_shared<Conv2D>(channels, 1, ConvOptions{.use_bias = false}));
  out->add(std::make_shared<AvgPool2D>(2, PoolOptions{.strides = 2}));
  return out;
}

}  // namespace

DenseNet::DenseNet(int64_t num_init_features, int64_t growth_rate, const std::vector<int64_t>& block_config,
                   int64_t bn_size, double dropout, int64_t classes, std::optional<std::string> prefix)
    : Classifier("DenseNet", std::move(prefix)) {
  auto scope = name_scope();
  features_->add(
      std::make_shared<Conv2D>(num_init_features, 7, ConvOptions{.strides = 2, .padding = 3, .use_bias = false}));
  add_norm_relu(*features_);
  features_->add(std::make_shared<MaxPool2D>(3, PoolOptions{.strides = 2, .padding = 1}));
  int64_t channels = num_init_features;
  for (size_t i = 0; i < block_config.size(); ++i) {
    features_->add(dense_block(block_config[i], bn_size, growth_rate, dropout, i + 1));
    channels += block_config[i] * growth_rate;
    if (i + 1 != block_config.size()) {
      channels /= 2;
      features_->add(transition(channels));
    }
  }
  add_norm_relu(*features_);
  features_->add(std::make_shared<AvgPool2D>(7));
  features_->add(std::make_shared<Flatten>());
  set_output(std::make_shared<nn::Dense>(classes));
}

std::shared_ptr<DenseNet> make_densenet(int num_layers, int64_t classes, std::optional<std::string> prefix) {
  struct Spec {
    int64_t init_features, growth_rate;
    std::vector<int64_t> blocks;
  };
  static const std::map<int, Spec> specs{{121, {64, 32, {6, 12, 24, 16}}},
                                         {161, {96, 48, {6, 12, 36, 24}}},
                                         {169, {64, 32, {6, 12, 32, 32}}},
                                         {201, {64, 32, {6, 12, 48, 32}}}};
  auto it = specs.find(num_layers);
  BRAID_CHECK(it != specs.end(), "Invalid number of layers: ", num_layers, ". Options are 121, 161, 169, 201");
  const Spec& s = it->second;
  return std::make_shared<DenseNet>(s.init_features, s.growth_rate, s.blocks, 4, 0.0, classes, std::move(prefix));
}

}  // namespace braid::gluon::model_zoo::vision
