#pragma once
/// Gluon blocks (MXNet's gluon.Block and HybridBlock): a model is a tree of blocks, each with its
/// own parameters and registered children.
///
/// Naming follows MXNet. A block's prefix is `<hint><n>_` (dense0_, conv2d1_) from a process-wide
/// counter per hint, or, when created inside a parent's name_scope(), the parent's prefix plus a
/// counter of that parent: `hybridsequential0_dense0_`. Parameters are named prefix + attribute
/// ("dense0_weight"). save_parameters writes structural names instead — the child's registered
/// name and the attribute, joined by dots ("0.weight", "features.1.bias") — as MXNet 1.x does.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "braid/gluon/parameter.h"
#include "braid/op/op_def.h"
#include "braid/symbol/executor.h"
#include "braid/symbol/symbol.h"

namespace braid::gluon {

class Block;
using BlockPtr = std::shared_ptr<Block>;

/// `with block.name_scope():` — blocks created while it lives are named under `block`. As in
/// MXNet, a block made with an empty prefix ("") opens no scope: its children are named in the
/// scope around it.
class NameScope {
 public:
  explicit NameScope(Block& block);
  ~NameScope();
  NameScope(const NameScope&) = delete;
  NameScope& operator=(const NameScope&) = delete;

 private:
  Block* prev_;
};

/// MXNet's `Block(params=shared)`: the next block created while it lives takes its parameters
/// from `shared` where it has them (the shared dictionary's prefix plus the attribute name:
/// `Dense(10, params=dense0.collect_params())` uses dense0_weight), and so do that block's children.
class ShareParameters {
 public:
  explicit ShareParameters(const ParameterDict& shared);
  ~ShareParameters();
  ShareParameters(const ShareParameters&) = delete;
  ShareParameters& operator=(const ShareParameters&) = delete;

 private:
  std::shared_ptr<const ParameterDict> prev_;
};

class Block {
 public:
  /// `hint`: the lowercase class name for the automatic prefix; `prefix`: an explicit one.
  explicit Block(const std::string& hint = "block", std::optional<std::string> prefix = std::nullopt);
  virtual ~Block() = default;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  const std::string& prefix() const { return prefix_; }
  /// The prefix without its trailing underscore.
  std::string name() const;
  /// False for a block made with an empty prefix: its children and operators are named in the
  /// scope around it.
  bool opens_name_scope() const { return !empty_prefix_; }
  /// This block's own parameters (full names).
  ParameterDict& params() { return params_; }
  const ParameterDict& params() const { return params_; }
  NameScope name_scope() { return NameScope(*this); }

  /// Registers `child` under `name` (default: its index among the children) and returns it.
  template <class B>
  std::shared_ptr<B> register_child(std::shared_ptr<B> child, const std::string& name = "") {
    add_child(child, name);
    return child;
  }
  const std::vector<std::pair<std::string, BlockPtr>>& children() const { return children_; }
  /// Registers an existing parameter under attribute name `name` (MXNet's `self.weight =
  /// self.params.get("weight", ...)` in a user-defined block): it is saved as "<child>.name" and
  /// belongs to this block's params() from then on.
  void register_attribute(const std::string& name, const ParameterPtr& p);
  /// Attribute name -> parameter, in registration order.
  const std::vector<std::pair<std::string, ParameterPtr>>& attribute_params() const { return reg_params_; }

  /// Parameters of this block and all its descendants, optionally those whose name matches the
  /// regular expression `select` at its start.
  ParameterDict collect_params(const std::string& select = "") const;
  /// Structural name ("0.weight") -> parameter, as save_parameters writes them.
  std::vector<std::pair<std::string, ParameterPtr>> collect_params_with_prefix(const std::string& prefix = "") const;

  void initialize(const init::InitializerPtr& init = nullptr, const std::vector<Context>& ctx = {cpu()},
                  bool force_reinit = false);
  /// MXNet 1.x's format: structural names, values averaged over contexts, written atomically.
  void save_parameters(const std::string& path) const;
  /// Reads structural names, or the full names of the older save_params/ParameterDict.save.
  void load_parameters(const std::string& path, const std::vector<Context>& ctx = {cpu()}, bool allow_missing = false,
                       bool ignore_extra = false, bool cast_dtype = false);
  /// Calls fn on every descendant, then on this block.
  void apply(const std::function<void(Block&)>& fn);
  void cast(DType dtype);
  /// Hybridizes HybridBlocks among this block and its descendants.
  virtual void hybridize(bool active = true, bool static_alloc = false, bool static_shape = false);
  /// MXNet's register_op_hook, for this block and its descendants: a hybridized block's graph
  /// calls `callback(node output name, operator, array)` for each node it runs (and with
  /// `monitor_all` for each node's inputs), as Executor::set_monitor_callback. A null callback
  /// removes it.
  virtual void register_op_hook(MonitorCallback callback, bool monitor_all = false);

  virtual std::vector<NDArray> forward(const std::vector<NDArray>& inputs) = 0;
  /// Calling a block (MXNet's __call__): its forward pre-hooks, run(), its forward hooks.
  /// Containers call their children this way.
  std::vector<NDArray> operator()(const std::vector<NDArray>& inputs);
  /// One input, one output.
  NDArray operator()(const NDArray& x);
  /// Calling the block on Symbols (MXNet's `block(sym.var('data'))`): the graph of its forward,
  /// its parameters as variables (initialized or not); nothing runs. Layers build their nodes
  /// through call_op; a forward written in Python is called with Symbols (symbolic_call.h).
  Symbol call_symbolic(const std::vector<Symbol>& inputs);

  /// What MXNet prints for the block: its class and arguments, children indented.
  virtual std::string repr() const;

  /// MXNet's register_forward_pre_hook and register_forward_hook: called at each call of this
  /// block (not when a hybridized parent runs its graph instead), before run() with the inputs
  /// and after it with the outputs. Each returns an id for remove_forward_hook.
  using ForwardPreHook = std::function<void(Block& block, const std::vector<NDArray>& inputs)>;
  using ForwardHook =
      std::function<void(Block& block, const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs)>;
  int add_forward_pre_hook(ForwardPreHook hook);
  int add_forward_hook(ForwardHook hook);
  void remove_forward_hook(int id);

 protected:
  /// Registers a parameter under attribute name `name` (full name prefix + name).
  ParameterPtr register_parameter(const std::string& name, Shape shape = Shape(), GradReq grad_req = GradReq::Write,
                                  init::InitializerPtr init = nullptr, DType dtype = DType::Float32,
                                  bool allow_deferred_init = true);
  /// The single input of a one-input block; throws naming the block otherwise.
  const NDArray& one_input(const std::vector<NDArray>& inputs) const;
  /// The class and arguments for repr(), e.g. "Dense(784 -> 128, Activation(relu))".
  virtual std::string describe() const;
  /// Called when a child is added or replaced (a hybridized block drops its traced graph).
  virtual void children_changed() {}
  /// Whether a trace names the block's first operator "<prefix>fwd", as MXNet's layers name
  /// theirs (true); blocks with a forward of their own (containers, the model zoo's) name every
  /// operator "<prefix><op><n>".
  virtual bool names_first_op_fwd() const { return true; }
  /// What a call computes: forward, or for a hybridized block its compiled graph.
  virtual std::vector<NDArray> run(const std::vector<NDArray>& inputs) { return forward(inputs); }

 private:
  friend class NameScope;
  void add_child(BlockPtr child, const std::string& name);

  std::string hint_;
  std::string prefix_;
  ParameterDict params_;
  std::vector<std::pair<std::string, ParameterPtr>> reg_params_;  // attribute name -> parameter
  std::vector<std::pair<std::string, BlockPtr>> children_;
  std::map<std::string, int> child_counters_;  // per hint, for children named in this scope
  bool empty_prefix_ = false;                  // made with prefix "": opens no name scope
  std::map<int, ForwardPreHook> pre_hooks_;
  std::map<int, ForwardHook> hooks_;
  int next_hook_id_ = 0;
};

namespace detail {
class CachedGraph;
}

/// An input of an operator call by a block: an array, or a parameter taken on the data's context.
using OpArg = std::variant<NDArray, ParameterPtr>;

/// Runs `op` on arrays and parameters given by argument name ("" for the next free slot, as
/// nd::invoke_named): parameters with unknown dimensions get them from the operator's shape
/// inference and are initialized first (MXNet's deferred initialization), then every parameter is
/// read on the context of the first array. `who` names the caller in errors.
std::vector<NDArray> invoke_with_parameters(const std::string& op,
                                            const std::vector<std::pair<std::string, OpArg>>& inputs,
                                            const op::AttrMap& attrs, const std::string& who);

/// A block whose forward uses only registered operators, so that it can be traced into a graph
/// (hybridize). Layers call their operator through call_op, which also completes the shapes of
/// deferred parameters from the operator's shape inference at the first forward.
class HybridBlock : public Block {
 public:
  using Block::Block;
  ~HybridBlock() override;
  /// Once active, the next call traces forward into a Symbol (running it imperatively once) and
  /// later calls run that graph through a cached plan per input shape: memory planned, element-
  /// wise chains fused, autograd seeing the whole graph as one node. Results equal the
  /// imperative ones. static_alloc reuses one set of buffers per shape (outputs are then
  /// overwritten by the next call); static_shape is accepted for MXNet compatibility (plans are
  /// always per shape). Calling hybridize again drops the traced graph.
  void hybridize(bool active = true, bool static_alloc = false, bool static_shape = false) override;
  bool hybridized() const { return hybridized_; }
  void register_op_hook(MonitorCallback callback, bool monitor_all = false) override;
  /// The traced graph (empty before the first hybridized call).
  Symbol traced_symbol() const;
  /// MXNet's export: `<prefix>-symbol.json` and `<prefix>-<epoch:04d>.params` (arg:/aux: names),
  /// both written atomically. Needs a hybridized block that ran at least once.
  void export_model(const std::string& path_prefix, int epoch = 0) const;

 protected:
  using OpArg = gluon::OpArg;
  /// Runs `op` on `args` (arguments then aux states, in the operator's order): invoke_with_parameters.
  std::vector<NDArray> call_op(const std::string& op, const std::vector<OpArg>& args,
                               const op::AttrMap& attrs = {}) const;
  NDArray call_op1(const std::string& op, const std::vector<OpArg>& args, const op::AttrMap& attrs = {}) const;
  /// The next operator this block calls is named "<prefix><name>" in a trace (MXNet's name=).
  void name_next_op(const std::string& name) const;

  /// The compiled graph calls run through: traced at the first hybridized call, or given
  /// (SymbolBlock).
  std::shared_ptr<detail::CachedGraph> cached_;
  bool static_alloc_ = false;
  /// Hands the registered op hook (register_op_hook) to a new cached_.
  void hook_cached_graph();
  void children_changed() override { cached_.reset(); }
  std::vector<NDArray> run(const std::vector<NDArray>& inputs) override;

 private:
  bool hybridized_ = false;
  MonitorCallback op_hook_;
  bool op_hook_all_ = false;
};

}  // namespace braid::gluon
