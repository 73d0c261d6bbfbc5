#pragma once
// Internal: turning one run of a block's forward into a Symbol (hybridize's trace). While a
// GraphTracer lives on a thread, every operator the imperative path runs becomes a node whose
// inputs are the nodes that produced its input arrays; the block's inputs are the variables
// "data" (or "data0", "data1", ...) and its parameters variables named as the parameters, with
// MXNet's __shape__/__dtype__/__lr_mult__/__wd_mult__ attributes. Nodes are named after the
// block running them, as MXNet names them: "<prefix>fwd" for a layer's first op, then
// "<prefix><op><n>" (the only form for blocks with their own forward, such as the model zoo's).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "braid/gluon/parameter.h"
#include "braid/symbol/executor.h"
#include "braid/symbol/symbol.h"
#include "imperative/tracer.h"

namespace braid::gluon::detail {

class GraphTracer : public imperative::Tracer {
 public:
  /// `first_op_fwd`: the block is a layer, whose first op MXNet names "<prefix>fwd".
  GraphTracer(const std::vector<NDArray>& inputs, const ParameterDict& params, const std::string& prefix,
              bool first_op_fwd);
  /// Symbolic mode (a block called on Symbols): nothing runs; `inputs` stand for the block's
  /// inputs through placeholder arrays (tokens()), and every operator a layer calls through
  /// invoke_with_parameters becomes a node (symbolic_node) whose outputs are new placeholders.
  GraphTracer(const std::vector<symbol::Entry>& inputs, const std::string& prefix, bool first_op_fwd);
  ~GraphTracer() override;
  GraphTracer(const GraphTracer&) = delete;
  GraphTracer& operator=(const GraphTracer&) = delete;

  void record(const op::OpDef& def, const std::string& spelling, const op::AttrMap& attrs,
              const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs) override;
  /// Names nodes after `prefix` until the matching pop_scope (a child block's forward).
  void push_scope(const std::string& prefix, bool first_op_fwd = true);
  /// The next node is named `<prefix><name>` (MXNet's name= argument of an operator call).
  void name_next(std::string name) { next_name_ = std::move(name); }
  void pop_scope();
  /// The graph computing `outputs`.
  Symbol finish(const std::vector<NDArray>& outputs);

  bool symbolic() const { return symbolic_; }
  const std::vector<NDArray>& tokens() const { return tokens_; }
  /// The graph entry an array (a placeholder, or an array the trace computed) stands for.
  symbol::Entry entry_of(const NDArray& a) { return lookup(a); }
  /// The variable of a parameter, with MXNet's attributes (made once per parameter).
  symbol::Entry param_entry(const ParameterPtr& p);
  /// A node of `def` (called as `spelling`, which names it) on `inputs`; returns one placeholder
  /// per output.
  std::vector<NDArray> symbolic_node(const op::OpDef& def, const std::string& spelling, const op::AttrMap& attrs,
                                     const std::vector<symbol::Entry>& inputs, int num_outputs);
  /// A placeholder standing for `e` (a Symbol a Python forward returned).
  NDArray token_for(const symbol::Entry& e);
  /// Notes that `a`, computed outside the operators the trace sees, is the graph's `e`.
  void note_computed(const NDArray& a, const symbol::Entry& e) { known_.emplace_back(a, e); }
  const std::vector<std::string>& input_names() const { return input_names_; }

  /// Tells `hook` of each recorded node's outputs (and with `all` its inputs) as it is recorded,
  /// under the names a monitored graph gives them (Block::register_op_hook on the tracing call).
  void set_op_hook(MonitorCallback hook, bool all) {
    hook_ = std::move(hook);
    hook_all_ = all;
  }

  /// The tracer of the calling thread, if it is a GraphTracer.
  static GraphTracer* current();

  /// Marks the graph as one that would not compute what the block computes on other inputs
  /// (braid/gluon/tracing.h); the first reason given is kept.
  void cannot_replay(const std::string& why) {
    if (why_not_replayable_.empty()) why_not_replayable_ = why;
  }
  const std::string& why_not_replayable() const { return why_not_replayable_; }

 private:
  symbol::Entry lookup(const NDArray& a);
  /// `a` as a view of an array the graph knows (a reshape or slice made outside an operator).
  std::optional<symbol::Entry> view_of_known(const NDArray& a);
  symbol::Entry add_node(const std::string& op, const op::AttrMap& attrs, const symbol::Entry& input);
  std::string next_name(const std::string& op);

  struct Scope {
    std::string prefix;
    bool first_op_fwd = true, used_fwd = false;
    std::map<std::string, int> counters;
  };
  std::string next_name_;  // name_next's, for the next node only
  std::vector<std::pair<NDArray, symbol::Entry>> known_;
  std::vector<std::pair<const Parameter*, symbol::Entry>> param_vars_;
  std::vector<NDArray> tokens_;
  bool symbolic_ = false;
  std::string why_not_replayable_;
  std::vector<ParameterPtr> params_;
  std::vector<std::string> input_names_;
  std::vector<Scope> scopes_;
  MonitorCallback hook_;
  bool hook_all_ = false;
  imperative::Tracer* prev_;
  GraphTracer* prev_current_ = nullptr;
};

}  // namespace braid::gluon::detail
