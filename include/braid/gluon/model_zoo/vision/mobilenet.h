#pragma once
/// MobileNet ("MobileNets: Efficient Convolutional Neural Networks for Mobile Vision
/// Applications", Howard et al. 2017) and MobileNetV2 ("Inverted Residuals and Linear
/// Bottlenecks", Sandler et al. 2018), as MXNet's gluon.model_zoo.vision.MobileNet / MobileNetV2.
#include "braid/gluon/model_zoo/vision/classifier.h"

namespace braid::gluon::model_zoo::vision {

/// min(max(x, 0), 6) (MXNet's RELU6 block).
class ReLU6 : public HybridBlock {
 public:
  explicit ReLU6(std::optional<std::string> prefix = std::nullopt) : HybridBlock("relu6", std::move(prefix)) {}
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;

 protected:
  std::string describe() const override { return "RELU6"; }
  bool names_first_op_fwd() const override { return false; }
};

/// MobileNetV2's unit: a 1x1 expansion by `t`, a depthwise 3x3 (strided by `stride`), a linear 1x1
/// projection to `channels`; plus the input when the shapes allow (stride 1, same channels).
class LinearBottleneck : public HybridBlock {
 public:
  LinearBottleneck(int64_t in_channels, int64_t channels, int64_t t, int64_t stride,
                   std::optional<std::string> prefix = std::nullopt);
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;

 protected:
  std::string describe() const override { return "LinearBottleneck"; }
  bool names_first_op_fwd() const override { return false; }

 private:
  bool use_shortcut_;
  BlockPtr out_;
};

/// MobileNet v1: depthwise separable convolutions with channels scaled by `multiplier`.
class MobileNet : public Classifier {
 public:
  explicit MobileNet(double multiplier = 1.0, int64_t classes = 1000, std::optional<std::string> prefix = std::nullopt);
};

/// MobileNetV2 with channels scaled by `multiplier` (the last 1280 only above 1.0).
class MobileNetV2 : public Classifier {
 public:
  explicit MobileNetV2(double multiplier = 1.0, int64_t classes = 1000,
                       std::optional<std::string> prefix = std::nullopt);
};

}  // namespace braid::gluon::model_zoo::vision
