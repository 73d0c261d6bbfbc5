#include <functional>
#include <map>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/base/suggest.h"
#include "braid/gluon/model_zoo/vision.h"

namespace braid::gluon::model_zoo::vision {
namespace {

using Prefix = std::optional<std::string>;
using Factory = std::function<std::shared_ptr<Classifier>(int64_t classes, Prefix prefix)>;

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> all = [] {
    std::map<std::string, Factory> m;
    for (int version : {1, 2})
      for (int layers : {18, 34, 50, 101, 152})
        m[cat("resnet", layers, "_v", version)] = [=](int64_t c, Prefix p) {
          return make_resnet(version, layers, c, false, std::move(p));
        };
    for (int layers : {11, 13, 16, 19})
      for (bool bn : {false, true})
        m[cat("vgg", layers, bn ? "_bn" : "")] = [=](int64_t c, Prefix p) {
          return make_vgg(layers, c, bn, std::move(p));
        };
    for (int layers : {121, 161, 169, 201})
      m[cat("densenet", layers)] = [=](int64_t c, Prefix p) { return make_densenet(layers, c, std::move(p)); };
    for (std::string version : {"1.0", "1.1"})
      m["squeezenet" + version] = [=](int64_t c, Prefix p) {
        return std::make_shared<SqueezeNet>(version, c, std::move(p));
      };
    for (const auto& [width, scale] :
         std::map<std::string, double>{{"1.0", 1.0}, {"0.75", 0.75}, {"0.5", 0.5}, {"0.25", 0.25}}) {
      const double multiplier = scale;  // clang 14 cannot capture a structured binding in a lambda
      m["mobilenet" + width] = [=](int64_t c, Prefix p) {
        return std::make_shared<MobileNet>(multiplier, c, std::move(p));
      };
      m["mobilenetv2_" + width] = [=](int64_t c, Prefix p) {
        return std::make_shared<MobileNetV2>(multiplier, c, std::move(p));
      };
    }
    m["alexnet"] = [](int64_t c, Prefix p) { return std::make_shared<AlexNet>(c, std::move(p)); };
    m["inceptionv3"] = [](int64_t c, Prefix p) { return std::make_shared<Inception3>(c, std::move(p)); };
    return m;
  }();
  return all;
}

}  // namespace

std::shared_ptr<Classifier> get_model(const std::string& name, int64_t classes, std::optional<std::string> prefix) {
  auto it = factories().find(to_lower(name));
  if (it == factories().end()) {
    std::string valid;
    for (const auto& n : model_names()) valid += "\n\t" + n;
    throw Error(
        cat("Model ", name, " is not supported", did_you_mean(name, model_names()), ". Available options are", valid));
  }
  BRAID_CHECK(classes > 0, "model ", name, ": classes must be positive, not ", classes);
  return it->second(classes, std::move(prefix));
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& [name, make] : factories()) names.push_back(name);
  return names;
}

int64_t image_size(const std::string& name) { return to_lower(name) == "inceptionv3" ? 299 : 224; }

}  // namespace braid::gluon::model_zoo::vision
