#pragma once
/// The built-in optimizers, MXNet 1.x's (python/mxnet/optimizer/optimizer.py) with their
/// hyper-parameter names and defaults, plus AdamW as in torch.optim.AdamW. Each runs one fused
/// update operator per weight. Create them by name with optim::create; formulas in docs/optim.md.
#include "braid/optim/optimizer.h"

namespace braid::optim {

/// SGD and NAG: state "mom" when momentum != 0; the momentum update op, or sgd_update without
/// momentum (and their mp_ twins for float16 weights).
class MomentumSGD : public Optimizer {
 public:
  std::vector<std::string> state_names() const override;

 protected:
  MomentumSGD(std::string name, std::string momentum_op);
  std::string fused_op(bool multi_precision) const override;
  op::AttrMap fused_attrs(const UpdateStep& s) const override;

 private:
  std::string momentum_op_;
  double momentum_ = 0;
};

/// "sgd": learning_rate 0.01, momentum 0, lazy_update True (accepted; arrays are dense).
/// sgd_mom_update: mom = momentum*mom - lr*(wd*w + clip(rescale_grad*grad)); w += mom.
class SGD : public MomentumSGD {
 public:
  SGD();

 protected:
  /// multi_sgd_update, multi_sgd_mom_update and their multi_mp_ twins.
  std::string aggregated_op(bool multi_precision) const override { return "multi_" + fused_op(multi_precision); }

 private:
  bool lazy_update_ = true;
};

/// "nag": Nesterov momentum; learning_rate 0.01, momentum 0 (nag_mom_update).
class NAG : public MomentumSGD {
 public:
  NAG();
};

/// Adam and AdamW: states "mean" and "var"; beta1 0.9, beta2 0.999, epsilon 1e-8.
class AdamBase : public Optimizer {
 public:
  std::vector<std::string> state_names() const override { return {"mean", "var"}; }

 protected:
  AdamBase(std::string name, std::string op, std::string mp_op);
  std::string fused_op(bool multi_precision) const override { return multi_precision ? mp_op_ : op_; }
  /// common_attrs(s) with beta1, beta2 and epsilon.
  op::AttrMap moment_attrs(const UpdateStep& s) const;

  double beta1_ = 0.9, beta2_ = 0.999, epsilon_ = 1e-8;

 private:
  std::string op_, mp_op_;
};

/// "adam": learning_rate 0.001, lazy_update True. The bias correction is folded into the rate:
/// lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t). Weight decay is L2 (added to the gradient).
class Adam : public AdamBase {
 public:
  Adam();

 protected:
  op::AttrMap fused_attrs(const UpdateStep& s) const override;

 private:
  bool lazy_update_ = true;
};

/// "adamw": decoupled weight decay, torch.optim.AdamW's update and defaults (learning_rate 0.001,
/// wd 0.01) plus MXNet's rescale_grad and clip_gradient.
class AdamW : public AdamBase {
 public:
  AdamW();

 protected:
  op::AttrMap fused_attrs(const UpdateStep& s) const override;
};

/// "rmsprop": learning_rate 0.001, gamma1 0.9, gamma2 0.9, epsilon 1e-8, centered False,
/// clip_weights None. Non-centered: rmsprop_update, state "n"; centered (Graves):
/// rmspropalex_update, states "n", "g", "delta".
class RMSProp : public Optimizer {
 public:
  RMSProp();
  std::vector<std::string> state_names() const override;

 protected:
  std::string fused_op(bool multi_precision) const override;
  op::AttrMap fused_attrs(const UpdateStep& s) const override;

 private:
  double gamma1_ = 0.9, gamma2_ = 0.9, epsilon_ = 1e-8;
  bool centered_ = false;
  std::optional<double> clip_weights_;
};

/// "adagrad": learning_rate 0.01, eps 1e-7. State "history".
class AdaGrad : public Optimizer {
 public:
  AdaGrad();
  std::vector<std::string> state_names() const override { return {"history"}; }

 protected:
  std::string fused_op(bool multi_precision) const override;
  op::AttrMap fused_attrs(const UpdateStep& s) const override;

 private:
  double eps_ = 1e-7;
};

/// "adadelta": rho 0.9, epsilon 1e-5. Like MXNet it uses no learning rate and subtracts
/// wd * weight unscaled. States "acc_g", "acc_delta".
class AdaDelta : public Optimizer {
 public:
  AdaDelta();
  std::vector<std::string> state_names() const override { return {"acc_g", "acc_delta"}; }

 protected:
  std::string fused_op(bool multi_precision) const override;
  op::AttrMap fused_attrs(const UpdateStep& s) const override;

 private:
  double rho_ = 0.9, epsilon_ = 1e-5;
};

}  // namespace braid::optim
