#pragma once
/// Gluon's Trainer (MXNet's gluon.Trainer): applies an optimizer to a set of parameters.
///
///   gluon::Trainer trainer(net->collect_params(), "sgd", {{"learning_rate", "0.1"}});
///   { autograd::RecordScope rec; loss = loss_fn(net(x), y); }
///   loss.backward();
///   trainer.step(batch_size);   // gradients scaled by 1 / batch_size, then one update each
///
/// Parameters are numbered in the order of the dictionary (the optimizer's index); their names,
/// lr_mult and wd_mult reach the optimizer.
///
/// Parameters held on several contexts (data parallelism) have their gradients summed over them
/// and every copy gets the same update, through a KVStore when there is one — MXNet's rules, set
/// up at the first step: `kvstore` names a type ("device", the default, or "local") or is a
/// store; with one context and no distributed type no store is used (the sum is then a local
/// one). `update_on_kvstore` (default: MXNET_UPDATE_ON_KVSTORE, on unless 0; off for "local"
/// with a parameter over 16M elements, as MXNet) makes the store run the optimizer on push and
/// the trainer pull the weights; otherwise the store only sums and each context updates its copy.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <optional>

#include "braid/gluon/parameter.h"
#include "braid/kvstore/kvstore.h"
#include "braid/optim/optimizer.h"

namespace braid::gluon {

/// The kvstore argument: a type name, a store, or none ("" or "None": no store).
struct KVStoreChoice {
  std::string name;
  std::shared_ptr<kv::KVStore> store;
  KVStoreChoice(const char* n) : name(n) {}
  KVStoreChoice(std::string n) : name(std::move(n)) {}
  KVStoreChoice(std::shared_ptr<kv::KVStore> s) : store(std::move(s)) {}
};

class Trainer {
 public:
  /// `optimizer` by name (optim::create) with `optimizer_params` in MXNet spelling; the
  /// "rescale_grad" given here is the scale that step() divides by the batch size.
  Trainer(const ParameterDict& params, const std::string& optimizer,
          const std::map<std::string, std::string>& optimizer_params = {}, KVStoreChoice kvstore = "device",
          std::optional<bool> update_on_kvstore = std::nullopt);
  /// With an optimizer object (its rescale_grad is the scale).
  Trainer(const ParameterDict& params, std::shared_ptr<optim::Optimizer> optimizer, KVStoreChoice kvstore = "device",
          std::optional<bool> update_on_kvstore = std::nullopt);

  /// allreduce_grads() then update(batch_size), or with update_on_kvstore a push of the gradients
  /// (the store updates) and a pull of the weights — not of row_sparse weights, whose rows
  /// row_sparse_data pulls as they are needed. With ignore_stale_grad, parameters whose
  /// gradient no backward wrote since the last step are skipped instead of being an error.
  void step(int64_t batch_size, bool ignore_stale_grad = false);
  virtual ~Trainer() = default;
  /// The scale of the gradients before the division by the batch size (MXNet's Trainer._scale;
  /// mixed precision's loss scaling divides it by the loss scale).
  double scale() const { return scale_; }
  /// On request (off by default, as in MXNet: it waits for the gradients), step() first checks
  /// that the dense gradients are finite and throws braid::Error naming the parameter, the likely
  /// cause and the fix (divergence_advice) rather than updating the weights with NaN.
  void set_stop_on_divergence(bool on) { stop_on_divergence_ = on; }
  bool stop_on_divergence() const { return stop_on_divergence_; }
  /// The check itself: throws when a dense gradient written since the last step is not finite.
  void check_finite_gradients() const;
  void set_scale(double scale) { scale_ = scale; }
  /// Sums each parameter's gradients over its contexts (into every context's buffer). Not with
  /// update_on_kvstore (as MXNet): use step().
  virtual void allreduce_grads();
  /// Updates the parameters from their gradients scaled by scale / batch_size. Not with
  /// update_on_kvstore (as MXNet): use step().
  void update(int64_t batch_size, bool ignore_stale_grad = false);

  /// The store in use (null without one) and whether it runs the optimizer; set up at the first
  /// step (or by this call).
  std::shared_ptr<kv::KVStore> kvstore();
  bool update_on_kvstore();
  /// Whether the store has been set up (by a step, or by kvstore()).
  bool kv_initialized() const { return kv_initialized_; }
  /// Drops the store (MXNet's _reset_kvstore, after parameters were loaded: the store's copies
  /// are stale); the next step sets one up again from the parameters' values.
  void reset_kvstore() {
    kv_initialized_ = false;
    kvstore_.reset();
    update_on_kvstore_ = false;
  }

  /// Whether the store keeps `p`'s current value, handing out its rows (a row_sparse weight the
  /// store updates); sets the store up first when every parameter is initialized.
  bool serves_rows(const Parameter& p);
  /// With serves_rows(p): rows `row_id` of p's value into the row_sparse `out` (a row_sparse_pull),
  /// or the whole value into p's own copies.
  void pull_rows(const Parameter& p, const NDArray& out, const NDArray& row_id);
  void pull_whole(const Parameter& p);

  double learning_rate() { return optimizer_->learning_rate(); }
  void set_learning_rate(double lr) { optimizer_->set_learning_rate(lr); }
  optim::Optimizer& optimizer() { return *optimizer_; }
  const std::vector<ParameterPtr>& params() const { return params_; }

  /// Optimizer states and update counts, written atomically (MXNet's save_states); with
  /// update_on_kvstore those of the store (for dist_*: of every server). load_states sets up the
  /// store first (its parameters must be initialized).
  void save_states(const std::string& path) const;
  void load_states(const std::string& path);

 private:
  void init_optimizer();
  void init_kvstore();
  // Whether parameter i takes part in this step (false: skip it); throws for a stale gradient
  // unless ignore_stale_grad.
  bool fresh(size_t i, bool ignore_stale_grad) const;
  void check_initialized(size_t i) const;
  int key_of(const Parameter& p) const;

  std::vector<ParameterPtr> params_;
  std::shared_ptr<optim::Optimizer> optimizer_;

 protected:
  double scale_ = 1.0;  // step() rescales gradients by scale_ / batch_size

 private:
  KVStoreChoice kvstore_choice_;
  std::optional<bool> update_on_kvstore_choice_;
  bool kv_initialized_ = false;
  std::shared_ptr<kv::KVStore> kvstore_;
  bool update_on_kvstore_ = false;
  bool stop_on_divergence_ = false;
};

}  // namespace braid::gluon
