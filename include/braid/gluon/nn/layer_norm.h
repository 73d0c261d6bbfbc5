#pragma once
/// Layer normalization (MXNet's nn.LayerNorm) along `axis`, through the LayerNorm operator:
/// (x - mean) / sqrt(var + epsilon) * gamma + beta. Parameters gamma and beta (in_channels,),
/// in_channels = 0 inferred at the first forward; center / scale false leave beta / gamma at
/// their initial values (grad_req null).
#include "braid/gluon/block.h"

namespace braid::gluon::nn {

struct LayerNormOptions {
  int axis = -1;
  double epsilon = 1e-5;
  bool center = true;
  bool scale = true;
  init::InitializerPtr beta_initializer = std::make_shared<init::Zero>();
  init::InitializerPtr gamma_initializer = std::make_shared<init::One>();
  int64_t in_channels = 0;
  std::optional<std::string> prefix = std::nullopt;
};

class LayerNorm : public HybridBlock {
 public:
  explicit LayerNorm(LayerNormOptions opt = {});
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  const ParameterPtr& gamma() const { return gamma_; }
  const ParameterPtr& beta() const { return beta_; }

 protected:
  std::string describe() const override;

 private:
  LayerNormOptions opt_;
  op::AttrMap attrs_;
  ParameterPtr gamma_, beta_;
};

}  // namespace braid::gluon::nn
