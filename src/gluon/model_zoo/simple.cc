#include "braid/gluon/model_zoo/simple.h"

#include "braid/base/error.h"
#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/batch_norm.h"
#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/pooling.h"
#include "braid/gluon/nn/sequential.h"
#include "braid/ndarray/elemwise.h"

namespace braid::gluon::model_zoo {
namespace {

using namespace nn;

/// relu(x + BN(conv(relu(BN(conv(x)))))), with a strided 1x1 projection of x when the shape changes.
class ResidualUnit : public HybridBlock {
 public:
  ResidualUnit(int64_t channels, int64_t stride) : HybridBlock("residualunit") {
    auto scope = name_scope();
    ConvOptions first{.strides = stride, .padding = 1, .use_bias = false};
    body_ = register_child(std::make_shared<HybridSequential>(), "body");
    body_->add(std::make_shared<Conv2D>(channels, 3, first));
    body_->add(std::make_shared<BatchNorm>());
    body_->add(std::make_shared<Activation>("relu"));
    body_->add(std::make_shared<Conv2D>(channels, 3, ConvOptions{.padding = 1, .use_bias = false}));
    body_->add(std::make_shared<BatchNorm>());
    if (stride != 1) {
      shortcut_ = register_child(std::make_shared<HybridSequential>(), "shortcut");
      shortcut_->add(std::make_shared<Conv2D>(channels, 1, ConvOptions{.strides = stride, .use_bias = false}));
      shortcut_->add(std::make_shared<BatchNorm>());
    }
  }
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override {
    const NDArray& x = one_input(inputs);
    NDArray skip = shortcut_ ? (*shortcut_)(x) : x;
    return {call_op1("Activation", {(*body_)(x) + skip}, {{"act_type", "relu"}})};
  }

 private:
  std::shared_ptr<HybridSequential> body_, shortcut_;
};

BlockPtr mlp(int classes) {
  auto net = std::make_shared<HybridSequential>();
  auto scope = net->name_scope();
  net->add(std::make_shared<Dense>(256, "relu"));
  net->add(std::make_shared<Dense>(256, "relu"));
  net->add(std::make_shared<Dense>(classes));
  return net;
}

BlockPtr lenet(int classes) {
  auto net = std::make_shared<HybridSequential>();
  auto scope = net->name_scope();
  net->add(std::make_shared<Conv2D>(20, 5, ConvOptions{.activation = "relu"}));
  net->add(std::make_shared<MaxPool2D>(2));
  net->add(std::make_shared<Conv2D>(50, 5, ConvOptions{.activation = "relu"}));
  net->add(std::make_shared<MaxPool2D>(2));
  net->add(std::make_shared<Dense>(128, "relu"));
  net->add(std::make_shared<Dense>(classes));
  return net;
}

BlockPtr resnet_mini(int classes) {
  auto net = std::make_shared<HybridSequential>();
  auto scope = net->name_scope();
  net->add(std::make_shared<Conv2D>(16, 3, ConvOptions{.padding = 1, .use_bias = false}));
  net->add(std::make_shared<BatchNorm>());
  net->add(std::make_shared<Activation>("relu"));
  net->add(std::make_shared<ResidualUnit>(16, 1));
  net->add(std::make_shared<ResidualUnit>(32, 2));
  net->add(std::make_shared<GlobalAvgPool2D>());
  net->add(std::make_shared<Dense>(classes));
  return net;
}

}  // namespace

std::vector<std::string> simple_model_names() { return {"mlp", "lenet", "resnet-mini"}; }

BlockPtr get_simple_model(const std::string& name, int classes) {
  if (name == "mlp") return mlp(classes);
  if (name == "lenet") return lenet(classes);
  if (name == "resnet-mini") return resnet_mini(classes);
  throw Error(cat("unknown model '", name, "'; valid: mlp, lenet, resnet-mini"));
}

}  // namespace braid::gluon::model_zoo
