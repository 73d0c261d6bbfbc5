#pragma once
/// VGG ("Very Deep Convolutional Networks for Large-Scale Image Recognition", Simonyan and
/// Zisserman 2014), 11 to 19 layers, with or without batch normalization, as MXNet's
/// gluon.model_zoo.vision.VGG.
#include <vector>

#include "braid/gluon/model_zoo/vision/classifier.h"

namespace braid::gluon::model_zoo::vision {

/// Stage i: `layers[i]` 3x3 convolutions of `filters[i]` channels (each followed by batch norm
/// with `batch_norm`), relu, then 2x2 max pooling; then two 4096-unit dense layers with dropout.
class VGG : public Classifier {
 public:
  VGG(const std::vector<int64_t>& layers, const std::vector<int64_t>& filters, int64_t classes = 1000,
      bool batch_norm = false, std::optional<std::string> prefix = std::nullopt);
};

/// MXNet's get_vgg(num_layers): 11, 13, 16 or 19.
std::shared_ptr<VGG> make_vgg(int num_layers, int64_t classes = 1000, bool batch_norm = false,
                              std::optional<std::string> prefix = std::nullopt);

}  // namespace braid::gluon::model_zoo::vision
