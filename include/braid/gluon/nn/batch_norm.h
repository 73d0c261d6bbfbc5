#pragma once
/// Batch normalization (MXNet's nn.BatchNorm) over every axis but `axis`, through the BatchNorm
/// operator. Parameters gamma, beta (learned) and running_mean, running_var (grad_req null),
/// each (in_channels,); in_channels = 0 is inferred at the first forward. In training mode
/// (autograd::RecordScope, train_mode) the batch statistics normalize and the running ones are
/// updated: running = momentum * running + (1 - momentum) * batch; in predict mode, or with
/// use_global_stats, the running statistics normalize.
#include "braid/gluon/block.h"

namespace braid::gluon::nn {

struct BatchNormOptions {
  int axis = 1;
  double momentum = 0.9;
  double epsilon = 1e-5;
  bool center = true;  // false: beta stays at its initial value (grad_req null)
  bool scale = true;   // false: gamma is fixed at 1 (the operator's fix_gamma; grad_req null)
  bool use_global_stats = false;
  init::InitializerPtr beta_initializer = std::make_shared<init::Zero>();
  init::InitializerPtr gamma_initializer = std::make_shared<init::One>();
  init::InitializerPtr running_mean_initializer = std::make_shared<init::Zero>();
  init::InitializerPtr running_variance_initializer = std::make_shared<init::One>();
  int64_t in_channels = 0;
  std::optional<std::string> prefix = std::nullopt;
};

class BatchNorm : public HybridBlock {
 public:
  explicit BatchNorm(BatchNormOptions opt = {});
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  const ParameterPtr& gamma() const { return gamma_; }
  const ParameterPtr& beta() const { return beta_; }
  const ParameterPtr& running_mean() const { return running_mean_; }
  const ParameterPtr& running_var() const { return running_var_; }

 protected:
  std::string describe() const override;

 private:
  BatchNormOptions opt_;
  op::AttrMap attrs_;
  ParameterPtr gamma_, beta_, running_mean_, running_var_;
};

}  // namespace braid::gluon::nn
