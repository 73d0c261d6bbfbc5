#pragma once
/// DenseNet-121, 161, 169 and 201 ("Densely Connected Convolutional Networks", Huang et al. 2016),
/// as MXNet's gluon.model_zoo.vision.DenseNet.
#include <vector>

#include "braid/gluon/model_zoo/vision/classifier.h"

namespace braid::gluon::model_zoo::vision {

/// A 7x7 stem of `num_init_features` channels, then dense blocks of `block_config[i]` layers, each
/// adding `growth_rate` channels (a 1x1 bottleneck of bn_size * growth_rate, then 3x3), with
/// transitions halving the channels between blocks; `dropout` after each layer when not 0.
class DenseNet : public Classifier {
 public:
  DenseNet(int64_t num_init_features, int64_t growth_rate, const std::vector<int64_t>& block_config,
           int64_t bn_size = 4, double dropout = 0, int64_t classes = 1000,
           std::optional<std::string> prefix = std::nullopt);
};

/// MXNet's get_densenet(num_layers): 121, 161, 169 or 201.
std::shared_ptr<DenseNet> make_densenet(int num_layers, int64_t classes = 1000,
                                        std::optional<std::string> prefix = std::nullopt);

}  // namespace braid::gluon::model_zoo::vision
