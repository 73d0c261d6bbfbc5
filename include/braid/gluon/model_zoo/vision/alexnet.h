#pragma once
/// AlexNet ("One weird trick for parallelizing convolutional neural networks", Krizhevsky 2014):
/// five convolutions and three dense layers, as MXNet's gluon.model_zoo.vision.AlexNet.
#include "braid/gluon/model_zoo/vision/classifier.h"

namespace braid::gluon::model_zoo::vision {

class AlexNet : public Classifier {
 public:
  explicit AlexNet(int64_t classes = 1000, std::optional<std::string> prefix = std::nullopt);
};

}  // namespace braid::gluon::model_zoo::vision
