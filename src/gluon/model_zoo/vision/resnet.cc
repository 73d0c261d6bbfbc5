#include "braid/gluon/model_zoo/vision/resnet.h"

#include <map>

#include "braid/base/error.h"
#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/batch_norm.h"
#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/flatten.h"
#include "braid/gluon/nn/pooling.h"

namespace braid::gluon::model_zoo::vision {
namespace {

using namespace nn;

std::shared_ptr<Conv2D> conv3x3(int64_t channels, int64_t stride, int64_t in_channels) {
  return std::make_shared<Conv2D>(
      channels, 3, ConvOptions{.strides = stride, .padding = 1, .use_bias = false, .in_channels = in_channels});
}

std::shared_ptr<Conv2D> conv1x1(int64_t channels, int64_t stride, bool use_bias, int64_t in_channels = 0) {
  return std::make_shared<Conv2D>(channels, 1,
                                  ConvOptions{.strides = stride, .use_bias = use_bias, .in_channels = in_channels});
}

}  // namespace

ResidualUnit::ResidualUnit(int version, ResidualKind kind, int64_t channels, int64_t stride, bool downsample,
                           int64_t in_channels, std::optional<std::string> prefix)
    : HybridBlock(kind == ResidualKind::Basic ? cat("basicblockv", version) : cat("bottleneckv", version),
                  std::move(prefix)),
      version_(version),
      describe_(kind == ResidualKind::Basic ? cat("BasicBlockV", version) : cat("BottleneckV", version)) {
  BRAID_CHECK(version == 1 || version == 2, "ResNet version ", version, " does not exist; valid: 1 and 2");
  const bool basic = kind == ResidualKind::Basic;
  const int64_t inner = basic ? channels : channels / 4;
  if (version == 1) {
    body_ = register_child(std::make_shared<HybridSequential>(""), "body");
    if (basic) {
      body_->add(conv3x3(channels, stride, in_channels));
    } else {
      body_->add(conv1x1(inner, stride, true));
    }
    body_->add(std::make_shared<BatchNorm>());
    body_->add(std::make_shared<Activation>("relu"));
    body_->add(conv3x3(inner, 1, inner));
    body_->add(std::make_shared<BatchNorm>());
    if (!basic) {
      body_->add(std::make_shared<Activation>("relu"));
      body_->add(conv1x1(channels, 1, true));
      body_->add(std::make_shared<BatchNorm>());
    }
    if (downsample) {
      auto d = register_child(std::make_shared<HybridSequential>(""), "downsample");
      d->add(conv1x1(channels, stride, false, in_channels));
      d->add(std::make_shared<BatchNorm>());
      downsample_ = d;
    }
    return;
  }
  // v2: bn1, conv1, bn2, conv2 (, bn3, conv3), then downsample, in MXNet's attribute order.
  const int units = basic ? 2 : 3;
  for (int i = 1; i <= units; ++i) {
    norms_.push_back(register_child(std::make_shared<BatchNorm>(), cat("bn", i)));
    BlockPtr conv;
    if (basic)
      conv = i == 1 ? BlockPtr(conv3x3(channels, stride, in_channels)) : BlockPtr(conv3x3(channels, 1, channels));
    else if (i == 1)
      conv = conv1x1(inner, 1, false);
    else if (i == 2)
      conv = conv3x3(inner, stride, inner);
    else
      conv = conv1x1(channels, 1, false);
    convs_.push_back(register_child(conv, cat("conv", i)));
  }
  if (downsample) downsample_ = register_child(conv1x1(channels, stride, false, in_channels), "downsample");
}

std::vector<NDArray> ResidualUnit::forward(const std::vector<NDArray>& inputs) {
  const NDArray& x = one_input(inputs);
  return version_ == 1 ? forward_v1(x) : forward_v2(x);
}

NDArray ResidualUnit::relu(const NDArray& x) const { return call_op1("Activation", {x}, {{"act_type", "relu"}}); }

// Symbol's + (MXNet's hybrid_forward adds with it: the node is "_plus<n>").
NDArray ResidualUnit::plus(const NDArray& a, const NDArray& b) const { return call_op1("_Plus", {a, b}); }

std::vector<NDArray> ResidualUnit::forward_v1(const NDArray& x) {
  NDArray residual = downsample_ ? (*downsample_)(x) : x;
  NDArray body = (*body_)(x);
  // MXNet's order of the sum's operands (the traced graph names and wires them as MXNet does).
  return {relu(describe_ == "BasicBlockV1" ? plus(residual, body) : plus(body, residual))};
}

std::vector<NDArray> ResidualUnit::forward_v2(const NDArray& x) {
  NDArray residual = x;
  NDArray y = relu((*norms_[0])(x));
  if (downsample_) residual = (*downsample_)(y);
  y = (*convs_[0])(y);
  for (size_t i = 1; i < convs_.size(); ++i) y = (*convs_[i])(relu((*norms_[i])(y)));
  return {plus(y, residual)};
}

ResNet::ResNet(int version, ResidualKind kind, const std::vector<int64_t>& layers, const std::vector<int64_t>& channels,
               int64_t classes, bool thumbnail, std::optional<std::string> prefix)
    : Classifier(cat("ResNetV", version), std::move(prefix)) {
  BRAID_CHECK(version == 1 || version == 2, "ResNet version ", version, " does not exist; valid: 1 and 2");
  BRAID_CHECK(!layers.empty() && layers.size() + 1 == channels.size(), "ResNet: ", layers.size(), " stages need ",
              layers.size() + 1, " channel counts (the stem's first), not ", channels.size());
  auto scope = name_scope();
  if (version == 2) features_->add(std::make_shared<BatchNorm>(BatchNormOptions{.center = false, .scale = false}));
  if (thumbnail) {
    features_->add(conv3x3(channels[0], 1, 0));
  } else {
    features_->add(
        std::make_shared<Conv2D>(channels[0], 7, ConvOptions{.strides = 2, .padding = 3, .use_bias = false}));
    features_->add(std::make_shared<BatchNorm>());
    features_->add(std::make_shared<Activation>("relu"));
    features_->add(std::make_shared<MaxPool2D>(3, PoolOptions{.strides = 2, .padding = 1}));
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    auto stage = std::make_shared<HybridSequential>(cat("stage", i + 1, "_"));
    {
      auto stage_scope = stage->name_scope();
      const int64_t stride = i == 0 ? 1 : 2, in = channels[i], out = channels[i + 1];
      stage->add(std::make_shared<ResidualUnit>(version, kind, out, stride, out != in, in, ""));
      for (int64_t u = 1; u < layers[i]; ++u)
        stage->add(std::make_shared<ResidualUnit>(version, kind, out, 1, false, out, ""));
    }
    features_->add(stage);
  }
  if (version == 2) {
    features_->add(std::make_shared<BatchNorm>());
    features_->add(std::make_shared<Activation>("relu"));
  }
  features_->add(std::make_shared<GlobalAvgPool2D>());
  if (version == 2) features_->add(std::make_shared<Flatten>());
  set_output(std::make_shared<Dense>(classes, DenseOptions{.in_units = channels.back()}));
}

std::shared_ptr<ResNet> make_resnet(int version, int num_layers, int64_t classes, bool thumbnail,
                                    std::optional<std::string> prefix) {
  struct Spec {
    ResidualKind kind;
    std::vector<int64_t> layers, channels;
  };
  static const std::map<int, Spec> specs{{18, {ResidualKind::Basic, {2, 2, 2, 2}, {64, 64, 128, 256, 512}}},
                                         {34, {ResidualKind::Basic, {3, 4, 6, 3}, {64, 64, 128, 256, 512}}},
                                         {50, {ResidualKind::Bottleneck, {3, 4, 6, 3}, {64, 256, 512, 1024, 2048}}},
                                         {101, {ResidualKind::Bottleneck, {3, 4, 23, 3}, {64, 256, 512, 1024, 2048}}},
                                         {152, {ResidualKind::Bottleneck, {3, 8, 36, 3}, {64, 256, 512, 1024, 2048}}}};
  auto it = specs.find(num_layers);
  BRAID_CHECK(it != specs.end(), "Invalid number of layers: ", num_layers, ". Options are 18, 34, 50, 101, 152");
  return std::make_shared<ResNet>(version, it->second.kind, it->second.layers, it->second.channels, classes, thumbnail,
                                  std::move(prefix));
}

}  // namespace braid::gluon::model_zoo::vision
