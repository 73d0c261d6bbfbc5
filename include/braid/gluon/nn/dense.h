#pragma once
/// Fully connected layer (MXNet's nn.Dense): y = activation(x * W^T + b), W (units, in_units).
/// With flatten, x (batch, d1, d2, ...) is read as batch rows of d1*d2*... features; otherwise
/// the last axis holds the features. in_units = 0 is inferred at the first forward.
#include "braid/gluon/block.h"

namespace braid::gluon::nn {

struct DenseOptions {
  std::string activation = "";  // "" (linear), or an Activation act_type: relu, sigmoid, tanh, softrelu, softsign
  bool use_bias = true;
  bool flatten = true;
  DType dtype = DType::Float32;
  init::InitializerPtr weight_initializer = nullptr;
  init::InitializerPtr bias_initializer = std::make_shared<init::Zero>();
  int64_t in_units = 0;
  std::optional<std::string> prefix = std::nullopt;
};

class Dense : public HybridBlock {
 public:
  explicit Dense(int64_t units, DenseOptions opt = {});
  /// Shorthand for Dense(units, {.activation = activation}).
  Dense(int64_t units, const std::string& activation) : Dense(units, DenseOptions{.activation = activation}) {}
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  const ParameterPtr& weight() const { return weight_; }
  const ParameterPtr& bias() const { return bias_; }

 protected:
  std::string describe() const override;

 private:
  int64_t units_;
  DenseOptions opt_;
  ParameterPtr weight_, bias_;
};

}  // namespace braid::gluon::nn
