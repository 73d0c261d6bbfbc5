#pragma once
/// Gluon's Trainer (MXNet's gluon.Trainer): applies an optimizer to a set of parameters.
///
///   gluon::Trainer trainer(net->collect_params(), "sgd", {{"learning_rate", "0.1"}});
///   { autograd::RecordScope rec; loss = loss_fn(net(x), y); }
///   loss.backward();
///   trainer.step(batch_size);   // gradients scaled by 1 / batch_size, then one update each
///
/// Parameters are numbered in the order of the dictionary (the optimizer's index); their names,
/// lr_mult and wd_mult reach the optimizer. A parameter held on several contexts has its
/// gradients summed over them (allreduce_grads) and each copy gets the same update. The kvstore
/// argument is accepted for MXNet's signature; distributed stores come with the kvstore issues.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "braid/gluon/parameter.h"
#include "braid/optim/optimizer.h"

namespace braid::gluon {

class Trainer {
 public:
  /// `optimizer` by name (optim::create) with `optimizer_params` in MXNet spelling; the
  /// "rescale_grad" given here is the scale that step() divides by the batch size.
  Trainer(const ParameterDict& params, const std::string& optimizer,
          const std::map<std::string, std::string>& optimizer_params = {}, const std::string& kvstore = "device");
  /// With an optimizer object (its rescale_grad is the scale).
  Trainer(const ParameterDict& params, std::shared_ptr<optim::Optimizer> optimizer,
          const std::string& kvstore = "device");

  /// allreduce_grads() then update(batch_size). With ignore_stale_grad, parameters whose gradient
  /// no backward wrote since the last step are skipped instead of being an error.
  void step(int64_t batch_size, bool ignore_stale_grad = false);
  /// Sums each parameter's gradients over its contexts (into every context's buffer).
  void allreduce_grads();
  /// Updates the parameters from their gradients scaled by scale / batch_size.
  void update(int64_t batch_size, bool ignore_stale_grad = false);

  double learning_rate() { return optimizer_->learning_rate(); }
  void set_learning_rate(double lr) { optimizer_->set_learning_rate(lr); }
  optim::Optimizer& optimizer() { return *optimizer_; }
  const std::vector<ParameterPtr>& params() const { return params_; }

  /// Optimizer states and update counts, written atomically (MXNet's save_states).
  void save_states(const std::string& path) const;
  void load_states(const std::string& path);

 private:
  void init_optimizer();

  std::vector<ParameterPtr> params_;
  std::shared_ptr<optim::Optimizer> optimizer_;
  double scale_ = 1.0;
  std::string kvstore_;
};

}  // namespace braid::gluon
