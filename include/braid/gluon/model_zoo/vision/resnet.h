#pragma once
/// ResNet v1 ("Deep Residual Learning for Image Recognition", He et al. 2015) and v2 ("Identity
/// Mappings in Deep Residual Networks", 2016) with MXNet's block structure and parameter names
/// (gluon.model_zoo.vision.resnet), so MXNet's pretrained files load.
#include <vector>

#include "braid/gluon/model_zoo/vision/classifier.h"

namespace braid::gluon::model_zoo::vision {

/// The residual unit a ResNet stacks: two 3x3 convolutions (basic) or 1x1, 3x3, 1x1 with a
/// quarter of the channels inside (bottleneck).
enum class ResidualKind { Basic, Bottleneck };

/// One residual unit of `version` 1 (convolution, batch norm, relu; the sum then relu) or 2
/// (pre-activation: batch norm, relu, convolution; the plain sum). MXNet's BasicBlockV1,
/// BottleneckV1, BasicBlockV2 and BottleneckV2.
class ResidualUnit : public HybridBlock {
 public:
  ResidualUnit(int version, ResidualKind kind, int64_t channels, int64_t stride, bool downsample,
               int64_t in_channels = 0, std::optional<std::string> prefix = std::nullopt);
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;

 protected:
  std::string describe() const override { return describe_; }
  bool names_first_op_fwd() const override { return false; }

 private:
  std::vector<NDArray> forward_v1(const NDArray& x);
  std::vector<NDArray> forward_v2(const NDArray& x);
  NDArray relu(const NDArray& x) const;
  NDArray plus(const NDArray& a, const NDArray& b) const;
  int version_;
  std::string describe_;
  std::shared_ptr<nn::HybridSequential> body_;  // v1: the whole path
  BlockPtr downsample_;                         // null when the input is added as it is
  std::vector<BlockPtr> norms_, convs_;         // v2: bn1.. and conv1.., in order
};

/// `version` 1 or 2; `layers[i]` units of `kind` in stage i + 1 with `channels[i + 1]` channels
/// (`channels[0]`: the stem's); `thumbnail`: a 3x3 stem for 32x32 images instead of 7x7 + pool.
class ResNet : public Classifier {
 public:
  ResNet(int version, ResidualKind kind, const std::vector<int64_t>& layers, const std::vector<int64_t>& channels,
         int64_t classes = 1000, bool thumbnail = false, std::optional<std::string> prefix = std::nullopt);
};

/// MXNet's get_resnet(version, num_layers): 18, 34 (basic units), 50, 101, 152 (bottlenecks).
std::shared_ptr<ResNet> make_resnet(int version, int num_layers, int64_t classes = 1000, bool thumbnail = false,
                                    std::optional<std::string> prefix = std::nullopt);

}  // namespace braid::gluon::model_zoo::vision
