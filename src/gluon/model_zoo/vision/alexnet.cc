#include "braid/gluon/model_zoo/vision/alexnet.h"

#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/dropout.h"
#include "braid/gluon/nn/flatten.h"
#include "braid/gluon/nn/pooling.h"

namespace braid::gluon::model_zoo::vision {

AlexNet::AlexNet(int64_t classes, std::optional<std::string> prefix) : Classifier("AlexNet", std::move(prefix)) {
  using namespace nn;
  auto scope = name_scope();
  struct Layer {
    int64_t channels, kernel, stride, pad;
    bool pool;
  };
  for (const Layer& l : {Layer{64, 11, 4, 2, true}, Layer{192, 5, 1, 2, true}, Layer{384, 3, 1, 1, false},
                         Layer{256, 3, 1, 1, false}, Layer{256, 3, 1, 1, true}}) {
    features_->add(std::make_shared<Conv2D>(l.channels, l.kernel,
                                            ConvOptions{.strides = l.stride, .padding = l.pad, .activation = "relu"}));
    if (l.pool) features_->add(std::make_shared<MaxPool2D>(3, PoolOptions{.strides = 2}));
  }
  features_->add(std::make_shared<Flatten>());
  for (int i = 0; i < 2; ++i) {
    features_->add(std::make_shared<Dense>(4096, "relu"));
    features_->add(std::make_shared<Dropout>(0.5));
  }
  set_output(std::make_shared<Dense>(classes));
}

}  // namespace braid::gluon::model_zoo::vision
