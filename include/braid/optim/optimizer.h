#pragma once
/// Optimizer: MXNet 1.x's mx.optimizer.Optimizer together with its Updater. update(index, weight,
/// grad) creates that index's state on first use and applies one update in place, as one engine
/// operation (a fused update operator). Hyper-parameters use MXNet's names and defaults; the
/// learning rate comes from `learning_rate` or an LRScheduler, times per-index multipliers.
/// Optimizers are created by name (optim::create), serialized (name + hyper-parameters +
/// multipliers + scheduler) and their states saved, so that a parameter server can run them.
/// Built-in optimizers: braid/optim/optimizers.h; semantics and formulas: docs/optim.md.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"
#include "braid/optim/lr_scheduler.h"

namespace braid::optim {

/// One update as a subclass sees it, after the update count, learning rate and weight decay of
/// the index were worked out.
struct UpdateStep {
  int index = 0;
  NDArray weight;  // updated in place
  NDArray grad;
  std::vector<NDArray> states;  // state_names() order
  NDArray weight32;             // the float32 master copy of a float16 weight, else None
  double lr = 0, wd = 0;        // after the scheduler and the lr_mult / wd_mult of the index
  int t = 0;                    // the index's update count, this update included (Adam's t)
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// The name it is registered under, lower case ("sgd", "adam").
  const std::string& name() const { return name_; }

  // --- hyper-parameters by MXNet name: learning_rate, wd, rescale_grad, clip_gradient ("None"
  // or a bound), multi_precision, begin_num_update, and each optimizer's own.
  /// Sets one from its MXNet spelling ("0.1", "True", "None"); throws braid::Error for an unknown
  /// name (with "did you mean" and the valid list) or a malformed value.
  void set_param(const std::string& key, const std::string& value);
  std::string param(const std::string& key) const;
  /// Every hyper-parameter, formatted so that set_param reads back the same value.
  std::map<std::string, std::string> params() const;

  /// The current learning rate: the scheduler's at num_update() when there is one, else
  /// learning_rate (MXNet's optimizer.learning_rate).
  double learning_rate();
  /// Throws when a scheduler is set (MXNet's set_learning_rate).
  void set_learning_rate(double lr);
  double wd() const { return wd_; }
  double rescale_grad() const { return rescale_grad_; }
  /// Trainer sets it to scale / batch_size before each step.
  void set_rescale_grad(double r) { rescale_grad_ = r; }
  std::optional<double> clip_gradient() const { return clip_gradient_; }
  bool multi_precision() const { return multi_precision_; }
  int begin_num_update() const { return begin_num_update_; }
  /// The largest update count over all indices (at least begin_num_update).
  int num_update() const { return num_update_; }
  /// The index's update count (begin_num_update plus its updates); 0 before its first update.
  int update_count(int index) const;

  /// Uses `s` for the learning rate from now on. When learning_rate was given explicitly, it
  /// overwrites the scheduler's base_lr (as MXNet does).
  void set_lr_scheduler(std::shared_ptr<LRScheduler> s);
  LRScheduler* lr_scheduler() const { return lr_scheduler_.get(); }

  // --- per-parameter multipliers (MXNet's param_idx2name, set_lr_mult, set_wd_mult).
  /// Names the indices. With names known, wd_mult defaults to 0 for every name not ending in
  /// "_weight" or "_gamma" (biases, BatchNorm's beta, moving statistics), as in MXNet.
  void set_idx2name(std::map<int, std::string> idx2name);
  const std::map<int, std::string>& idx2name() const { return idx2name_; }
  /// Replaces every learning-rate multiplier; an index entry wins over the name of the index.
  void set_lr_mult(std::map<std::string, double> by_name, std::map<int, double> by_index = {});
  /// Replaces every weight-decay multiplier (on top of the name defaults above).
  void set_wd_mult(std::map<std::string, double> by_name, std::map<int, double> by_index = {});
  /// The learning rate for `index` now (MXNet's _get_lr; advances a stateful scheduler).
  double get_lr(int index);
  double get_wd(int index) const;
  /// Updates of `alias` use the multipliers (and name) of `index`, with a state and update count
  /// of their own: a parameter server's slices of one key, each updated as its round completes.
  void alias_index(int alias, int index) { aliases_[alias] = index; }

  // --- updates
  /// Updates `weight` in place from `grad` (same shape and context). The state of `index` is
  /// created on first use. With multi_precision, a float16 weight is updated on a float32 master
  /// copy kept in the state and written rounded from it; without, in float16 (as MXNet, which
  /// warns: small steps are lost to rounding).
  void update(int index, NDArray weight, const NDArray& grad);
  /// Updates several indices, as update() on each in turn does. Where the optimizer has a
  /// multi-weight operator (SGD: MXNet's multi_sgd_mom_update), weights of one context and dtype
  /// are updated by one operation, up to aggregation_size() at a time.
  void update(const std::vector<int>& indices, const std::vector<NDArray>& weights, const std::vector<NDArray>& grads);
  /// How many weights one multi-weight update takes: MXNET_OPTIMIZER_AGGREGATION_SIZE, else 60
  /// (MXNet's largest; its default is 4). The results do not depend on it.
  static int aggregation_size();
  bool has_state(int index) const { return states_.count(index) > 0; }
  /// The state arrays of `index` (state_names() order); throws if it has none yet.
  const std::vector<NDArray>& state(int index) const;
  /// The float32 master copy of `index`, or None.
  NDArray master_weight(int index) const;
  /// Names of the per-index state arrays ("mom"; "mean", "var"), given the hyper-parameters.
  virtual std::vector<std::string> state_names() const { return {}; }

  // --- persistence
  /// JSON: name, hyper-parameters, idx2name, multipliers and the scheduler (with its state).
  std::string serialize() const;
  /// The registered optimizer serialize() names, and hyper-parameters it adds to params(): an
  /// optimizer written in another language that stands for a core one names that (and its
  /// settings, e.g. momentum), so that a parameter server's servers run the same updates.
  struct CoreIdentity {
    std::string name;
    std::map<std::string, std::string> params;
  };
  virtual CoreIdentity core_identity() const { return {name_, {}}; }
  /// An optimizer equal to the serialized one, without states (created through optim::create,
  /// so user-registered optimizers work too).
  static std::unique_ptr<Optimizer> deserialize(const std::string& json);
  /// An optimizer written in another language (a Python subclass of MXNet's Optimizer): the bytes
  /// that rebuild it in a process running the same program (Python: its pickle), which is how
  /// the parameter server's servers get it (kv::set_optimizer_loader). Empty for the core's
  /// optimizers, which serialize() describes.
  virtual std::string foreign_image() const { return {}; }
  /// Every index's state arrays as a .params image (names "<index>_<state>", "<index>_weight32")
  /// plus the update counts (kUpdateCountsEntry: rows (index, count); kNumUpdateEntry).
  std::string save_states() const;
  static constexpr const char* kUpdateCountsEntry = "__update_counts__";
  static constexpr const char* kNumUpdateEntry = "__num_update__";
  /// Replaces the states and counts with those of save_states(); throws naming the array when
  /// the image does not fit this optimizer's state_names().
  void load_states(const std::string& bytes);

 protected:
  Optimizer(std::string name, double default_learning_rate);

  /// Renames it (an optimizer defined in Python learns its registered name after construction).
  void set_name(std::string name) { name_ = std::move(name); }
  /// Declares a hyper-parameter under its MXNet name for set_param, params() and serialize().
  using Field = std::variant<double*, bool*, int*, std::optional<double>*>;
  void declare(const std::string& key, Field field);

  /// The initial state of `index` (MXNet's create_state): default zeros like `weight` (dtype,
  /// shape, context) for each state name.
  virtual std::vector<NDArray> create_state(int index, const NDArray& weight) const;
  /// The fused operator doing the whole update: inputs weight, grad, states, then weight32 when
  /// `multi_precision`; "" for an optimizer that implements step() instead.
  virtual std::string fused_op(bool multi_precision) const { return {}; }
  /// Its attributes for this step.
  virtual op::AttrMap fused_attrs(const UpdateStep& s) const { return {}; }
  /// The operator doing fused_op's update for several weights at once (inputs: per weight
  /// weight_i, grad_i, states, weight32_i; attributes fused_attrs' but lr and wd, plus lrs, wds
  /// and num_weights); "" where there is none.
  virtual std::string aggregated_op(bool multi_precision) const { return {}; }
  /// The update of optimizers without a fused operator (user ones): changes s.weight and
  /// s.states in place. With multi_precision, s.weight is the float32 master copy and s.grad a
  /// float32 copy; the weight is written from the master copy afterwards.
  virtual void step(const UpdateStep& s);
  /// lr, wd, rescale_grad and clip_gradient (when set) as update-op attributes.
  op::AttrMap common_attrs(const UpdateStep& s) const;

  double lr_;
  double wd_ = 0, rescale_grad_ = 1;
  std::optional<double> clip_gradient_;
  bool multi_precision_ = false;
  int begin_num_update_ = 0;

 private:
  friend std::unique_ptr<Optimizer> create(const std::string&, const std::map<std::string, std::string>&);
  struct Multipliers {
    std::map<std::string, double> by_name;
    std::map<int, double> by_index;
  };
  struct State {
    std::vector<NDArray> arrays;
    NDArray weight32;
  };
  /// The field of `key`; throws naming the valid keys.
  std::map<std::string, Field>::const_iterator find_field(const std::string& key) const;
  /// Whether the update of `weight` runs on a float32 master copy (multi_precision, float16).
  bool uses_master_copy(const NDArray& weight) const;
  State& state_for(int index, const NDArray& weight);
  /// Checks the arguments, creates the state on first use, counts the update and works out
  /// the learning rate and weight decay.
  UpdateStep begin_update(int index, const NDArray& weight, const NDArray& grad);
  /// Runs one prepared update.
  void apply(const UpdateStep& s);
  /// Runs prepared updates of one context and dtype through aggregated_op.
  void apply_aggregated(const std::vector<UpdateStep>& steps);
  int count_update(int index);

  std::string name_;
  std::map<std::string, Field> fields_;
  bool learning_rate_given_ = false;
  std::shared_ptr<LRScheduler> lr_scheduler_;
  /// `index` itself, or the index it is an alias of.
  int multipliers_of(int index) const;

  std::map<int, std::string> idx2name_;
  std::map<int, int> aliases_;  // alias -> index
  Multipliers lr_mult_, wd_mult_;
  int num_update_ = 0;
  std::map<int, int> update_counts_;
  std::map<int, State> states_;
  bool warned_float16_ = false;
};

/// Makes a new optimizer of type `name` (case-insensitive: "sgd", "Adam") with hyper-parameters
/// in MXNet spelling ({"learning_rate", "0.1"}, {"momentum", "0.9"}). Throws braid::Error for an
/// unknown optimizer or parameter, with "did you mean" and the valid names.
std::unique_ptr<Optimizer> create(const std::string& name, const std::map<std::string, std::string>& params = {});

/// Makes `name` (lower-cased) available to create(): `factory` returns a default-constructed
/// optimizer whose declared hyper-parameters create() then sets. Replaces an earlier
/// registration of the same name (MXNet's Optimizer.register).
void register_optimizer(const std::string& name, std::function<std::unique_ptr<Optimizer>()> factory);
/// Registered names, sorted.
std::vector<std::string> optimizer_names();

}  // namespace braid::optim
