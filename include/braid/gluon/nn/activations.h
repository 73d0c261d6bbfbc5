#pragma once
/// Activation layers (MXNet's nn.Activation, LeakyReLU, PReLU, ELU, SELU, GELU), each one call of
/// the Activation or LeakyReLU operator; the output has the input's shape.
#include "braid/gluon/block.h"

namespace braid::gluon::nn {

/// A parameterless activation: one operator with fixed attributes. The classes below choose them.
class OpActivation : public HybridBlock {
 public:
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;

 protected:
  /// `hint` names the block (relu0_, elu0_); `repr` is what MXNet prints for it.
  OpActivation(const std::string& hint, std::string op, op::AttrMap attrs, std::string repr,
               std::optional<std::string> prefix);
  std::string describe() const override { return repr_; }

 private:
  std::string op_;
  op::AttrMap attrs_;
  std::string repr_;
};

/// act_type: relu, sigmoid, tanh, softrelu, softsign (the Activation operator's). Named after it
/// (relu0_), as MXNet does.
class Activation : public OpActivation {
 public:
  explicit Activation(const std::string& act_type, std::optional<std::string> prefix = std::nullopt);
};

/// x for x >= 0, alpha * x below (alpha >= 0).
class LeakyReLU : public OpActivation {
 public:
  explicit LeakyReLU(double alpha, std::optional<std::string> prefix = std::nullopt);
};

/// x for x > 0, alpha * (exp(x) - 1) below.
class ELU : public OpActivation {
 public:
  explicit ELU(double alpha = 1.0, std::optional<std::string> prefix = std::nullopt);
};

/// Scaled ELU with the fixed constants of Klambauer et al. (2017).
class SELU : public OpActivation {
 public:
  explicit SELU(std::optional<std::string> prefix = std::nullopt);
};

/// x * Phi(x), Phi the standard normal CDF (the erf form).
class GELU : public OpActivation {
 public:
  explicit GELU(std::optional<std::string> prefix = std::nullopt);
};

struct PReLUOptions {
  init::InitializerPtr alpha_initializer = std::make_shared<init::Constant>(0.25);
  int64_t in_channels = 1;  // 1: one slope for all; else one per channel (axis 1)
  std::optional<std::string> prefix = std::nullopt;
};

/// LeakyReLU with a learned slope: parameter `alpha` of shape (in_channels,).
class PReLU : public HybridBlock {
 public:
  explicit PReLU(PReLUOptions opt = {});
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  const ParameterPtr& alpha() const { return alpha_; }

 protected:
  std::string describe() const override;

 private:
  ParameterPtr alpha_;
};

}  // namespace braid::gluon::nn
