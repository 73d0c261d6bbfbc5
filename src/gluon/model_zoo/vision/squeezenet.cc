#include "braid/gluon/model_zoo/vision/squeezenet.h"

#include <algorithm>
#include <vector>

#include "braid/base/error.h"
#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/concurrent.h"
#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dropout.h"
#include "braid/gluon/nn/flatten.h"
#include "braid/gluon/nn/pooling.h"

namespace braid::gluon::model_zoo::vision {
namespace {

using namespace nn;

std::shared_ptr<HybridSequential> fire_conv(int64_t channels, int64_t kernel, int64_t padding) {
  auto out = std::make_shared<HybridSequential>("");
  out->add(std::make_shared<Conv2D>(channels, kernel, ConvOptions{.padding = padding}));
  out->add(std::make_shared<Activation>("relu"));
  return out;
}

std::shared_ptr<HybridSequential> fire(int64_t squeeze, int64_t expand1x1, int64_t expand3x3) {
  auto out = std::make_shared<HybridSequential>("");
  out->add(fire_conv(squeeze, 1, 0));
  auto paths = std::make_shared<HybridConcurrent>(1, "");
  paths->add(fire_conv(expand1x1, 1, 0));
  paths->add(fire_conv(expand3x3, 3, 1));
  out->add(paths);
  return out;
}

std::shared_ptr<MaxPool2D> pool() {
  return std::make_shared<MaxPool2D>(3, PoolOptions{.strides = 2, .ceil_mode = true});
}

}  // namespace

SqueezeNet::SqueezeNet(const std::string& version, int64_t classes, std::optional<std::string> prefix)
    : Classifier("SqueezeNet", std::move(prefix)) {
  BRAID_CHECK(version == "1.0" || version == "1.1", "Unsupported SqueezeNet version ", version,
              ": 1.0 or 1.1 expected");
  auto scope = name_scope();
  auto& f = *features_;
  // Both versions run the same eight fire modules (squeeze channels, expanded to four times as
  // many); they differ in the first convolution and in where the max-poolings fall.
  const bool v10 = version == "1.0";
  f.add(std::make_shared<Conv2D>(v10 ? 96 : 64, v10 ? 7 : 3, ConvOptions{.strides = 2}));
  f.add(std::make_shared<Activation>("relu"));
  f.add(pool());
  const int64_t squeeze[] = {16, 16, 32, 32, 48, 48, 64, 64};
  const std::vector<int> pool_before = v10 ? std::vector<int>{3, 7} : std::vector<int>{2, 4};
  for (int i = 0; i < 8; ++i) {
    if (std::find(pool_before.begin(), pool_before.end(), i) != pool_before.end()) f.add(pool());
    f.add(fire(squeeze[i], 4 * squeeze[i], 4 * squeeze[i]));
  }
  f.add(std::make_shared<Dropout>(0.5));
  auto output = std::make_shared<HybridSequential>("");
  output->add(std::make_shared<Conv2D>(classes, 1));
  output->add(std::make_shared<Activation>("relu"));
  output->add(std::make_shared<AvgPool2D>(13));
  output->add(std::make_shared<Flatten>());
  set_output(output);
}

}  // namespace braid::gluon::model_zoo::vision
