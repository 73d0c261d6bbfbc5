#pragma once
/// The image classification networks of MXNet's gluon.model_zoo.vision, with MXNet's block
/// structure and parameter names, so that a .params file saved by MXNet's model zoo loads with
/// load_parameters: AlexNet, VGG 11-19 (with or without batch norm), ResNet v1/v2 18-152,
/// DenseNet 121-201, SqueezeNet 1.0/1.1, Inception v3, MobileNet and MobileNetV2 (widths 1.0,
/// 0.75, 0.5, 0.25). The Python package's model zoo is these classes.
#include <string>
#include <vector>

#include "braid/gluon/model_zoo/vision/alexnet.h"
#include "braid/gluon/model_zoo/vision/densenet.h"
#include "braid/gluon/model_zoo/vision/inception.h"
#include "braid/gluon/model_zoo/vision/mobilenet.h"
#include "braid/gluon/model_zoo/vision/resnet.h"
#include "braid/gluon/model_zoo/vision/squeezenet.h"
#include "braid/gluon/model_zoo/vision/vgg.h"

namespace braid::gluon::model_zoo::vision {

/// A model by MXNet's name, case-insensitive: resnet18_v1 .. resnet152_v2, vgg11 .. vgg19_bn,
/// alexnet, densenet121 .. densenet201, squeezenet1.0, squeezenet1.1, inceptionv3, mobilenet1.0 ..
/// mobilenet0.25, mobilenetv2_1.0 .. mobilenetv2_0.25. Throws listing the names for any other.
std::shared_ptr<Classifier> get_model(const std::string& name, int64_t classes = 1000,
                                      std::optional<std::string> prefix = std::nullopt);

/// Every name get_model knows, sorted.
std::vector<std::string> model_names();

/// The side of the square images the model was designed for: 299 for Inception v3, else 224.
int64_t image_size(const std::string& name);

}  // namespace braid::gluon::model_zoo::vision
