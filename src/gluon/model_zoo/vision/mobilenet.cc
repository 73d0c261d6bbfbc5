#include "braid/gluon/model_zoo/vision/mobilenet.h"

#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/batch_norm.h"
#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/flatten.h"
#include "braid/gluon/nn/pooling.h"

namespace braid::gluon::model_zoo::vision {
namespace {

using namespace nn;

struct ConvUnit {
  int64_t channels, kernel = 1, stride = 1, pad = 0, groups = 1;
  bool active = true, relu6 = false;
};

// Convolution without bias, batch norm, then relu or ReLU6 unless linear (`active` false).
void add_conv(HybridSequential& out, const ConvUnit& c) {
  out.add(std::make_shared<Conv2D>(
      c.channels, c.kernel, ConvOptions{.strides = c.stride, .padding = c.pad, .groups = c.groups, .use_bias = false}));
  out.add(std::make_shared<BatchNorm>());
  if (!c.active) return;
  if (c.relu6)
    out.add(std::make_shared<ReLU6>());
  else
    out.add(std::make_shared<Activation>("relu"));
}

std::vector<int64_t> scaled(const std::vector<std::pair<int64_t, int>>& runs, double multiplier) {
  std::vector<int64_t> out;
  for (const auto& [value, count] : runs)
    for (int i = 0; i < count; ++i) out.push_back(static_cast<int64_t>(static_cast<double>(value) * multiplier));
  return out;
}

}  // namespace

std::vector<NDArray> ReLU6::forward(const std::vector<NDArray>& inputs) {
  name_next_op("relu6");
  return {call_op1("clip", {one_input(inputs)}, {{"a_min", "0"}, {"a_max", "6"}})};
}

LinearBottleneck::LinearBottleneck(int64_t in_channels, int64_t channels, int64_t t, int64_t stride,
                                   std::optional<std::string> prefix)
    : HybridBlock("linearbottleneck", std::move(prefix)), use_shortcut_(stride == 1 && in_channels == channels) {
  auto scope = name_scope();
  auto out = register_child(std::make_shared<HybridSequential>(), "out");
  const int64_t expanded = in_channels * t;
  add_conv(*out, {.channels = expanded, .relu6 = true});
  add_conv(*out, {.channels = expanded, .kernel = 3, .stride = stride, .pad = 1, .groups = expanded, .relu6 = true});
  add_conv(*out, {.channels = channels, .active = false});
  out_ = out;
}

std::vector<NDArray> LinearBottleneck::forward(const std::vector<NDArray>& inputs) {
  const NDArray& x = one_input(inputs);
  NDArray out = (*out_)(x);
  if (!use_shortcut_) return {out};
  return {call_op1("elemwise_add", {out, x})};
}

MobileNet::MobileNet(double multiplier, int64_t classes, std::optional<std::string> prefix)
    : Classifier("MobileNet", std::move(prefix)) {
  auto scope = name_scope();
  add_conv(*features_, {.channels = static_cast<int64_t>(32 * multiplier), .kernel = 3, .stride = 2, .pad = 1});
  const auto dw_channels = scaled({{32, 1}, {64, 1}, {128, 2}, {256, 2}, {512, 6}, {1024, 1}}, multiplier);
  const auto channels = scaled({{64, 1}, {128, 2}, {256, 2}, {512, 6}, {1024, 2}}, multiplier);
  const std::vector<int64_t> strides{1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1};
  for (size_t i = 0; i < strides.size(); ++i) {  // depthwise 3x3, then pointwise
    const int64_t dw = dw_channels[i];
    add_conv(*features_, {.channels = dw, .kernel = 3, .stride = strides[i], .pad = 1, .groups = dw});
    add_conv(*features_, {.channels = channels[i]});
  }
  features_->add(std::make_shared<GlobalAvgPool2D>());
  features_->add(std::make_shared<Flatten>());
  set_output(std::make_shared<Dense>(classes));
}

MobileNetV2::MobileNetV2(double multiplier, int64_t classes, std::optional<std::string> prefix)
    : Classifier("MobileNetV2", std::move(prefix), "features_") {
  auto scope = name_scope();
  {
    auto features_scope = features_->name_scope();
    add_conv(*features_,
             {.channels = static_cast<int64_t>(32 * multiplier), .kernel = 3, .stride = 2, .pad = 1, .relu6 = true});
    const auto in_channels = scaled({{32, 1}, {16, 1}, {24, 2}, {32, 3}, {64, 4}, {96, 3}, {160, 3}}, multiplier);
    const auto channels = scaled({{16, 1}, {24, 2}, {32, 3}, {64, 4}, {96, 3}, {160, 3}, {320, 1}}, multiplier);
    const std::vector<int64_t> strides{1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1};
    for (size_t i = 0; i < strides.size(); ++i)
      features_->add(std::make_shared<LinearBottleneck>(in_channels[i], channels[i], i == 0 ? 1 : 6, strides[i]));
    const int64_t last = multiplier > 1.0 ? static_cast<int64_t>(1280 * multiplier) : 1280;
    add_conv(*features_, {.channels = last, .relu6 = true});
    features_->add(std::make_shared<GlobalAvgPool2D>());
  }
  auto output = std::make_shared<HybridSequential>("output_");
  {
    auto output_scope = output->name_scope();
    output->add(std::make_shared<Conv2D>(classes, 1, ConvOptions{.use_bias = false, .prefix = "pred_"}));
    output->add(std::make_shared<Flatten>());
  }
  set_output(output);
}

}  // namespace braid::gluon::model_zoo::vision
