#pragma once
/// Inception v3 ("Rethinking the Inception Architecture for Computer Vision", Szegedy et al.
/// 2015), without the auxiliary classifier, as MXNet's gluon.model_zoo.vision.Inception3. Takes
/// 299 x 299 images.
#include "braid/gluon/model_zoo/vision/classifier.h"

namespace braid::gluon::model_zoo::vision {

/// A stem, blocks A1-A3, B, C1-C4, D, E1-E2 (named so: inception30_A1_conv0_weight), 8x8 average
/// pooling, dropout, then `output`.
class Inception3 : public Classifier {
 public:
  explicit Inception3(int64_t classes = 1000, std::optional<std::string> prefix = std::nullopt);
};

}  // namespace braid::gluon::model_zoo::vision
