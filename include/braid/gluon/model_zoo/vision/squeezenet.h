#pragma once
/// SqueezeNet 1.0 and 1.1 ("SqueezeNet: AlexNet-level accuracy with 50x fewer parameters",
/// Iandola et al. 2016), as MXNet's gluon.model_zoo.vision.SqueezeNet.
#include "braid/gluon/model_zoo/vision/classifier.h"

namespace braid::gluon::model_zoo::vision {

/// `version` "1.0" or "1.1". Fire modules: a 1x1 squeeze convolution, then 1x1 and 3x3 expansions
/// side by side; the classifier is a 1x1 convolution with 13x13 average pooling.
class SqueezeNet : public Classifier {
 public:
  explicit SqueezeNet(const std::string& version, int64_t classes = 1000,
                      std::optional<std::string> prefix = std::nullopt);
};

}  // namespace braid::gluon::model_zoo::vision
