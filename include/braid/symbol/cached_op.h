#pragma once
/// CachedOp: a Symbol run as one operation from imperative code (MXNet's `mx.nd.CachedOp`), what
/// hybridized Gluon blocks and SymbolBlock call. A plan is compiled per set of input shapes,
/// dtypes, contexts and wanted gradients, and kept. Inside autograd recording the whole graph
/// is one node of the tape, whose backward runs the plan's backward.
///
/// Without `static_alloc` every call allocates its planned buffers afresh (from the storage
/// pool), so results and pending backward passes of earlier calls stay valid. With
/// `static_alloc` one set of buffers per plan is reused: outputs are overwritten by the next
/// call, and a backward must come before the next forward, as in MXNet.
///
/// A graph whose shapes depend on values (boolean_mask) cannot be planned: it runs one operator
/// call at a time, each recorded by autograd as in imperative code, as MXNet runs such graphs.
///
///   symbol::CachedOp op(net_symbol, /*static_alloc=*/false);
///   auto outputs = op(args, aux);   // args in list_arguments() order, aux likewise
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/symbol/executor.h"
#include "braid/symbol/symbol.h"

namespace braid::symbol {

class CachedOp {
 public:
  explicit CachedOp(Symbol symbol, bool static_alloc = false, ExecutorOptions options = {});
  ~CachedOp();
  CachedOp(const CachedOp&) = delete;
  CachedOp& operator=(const CachedOp&) = delete;

  /// Runs the graph on `args` (one per list_arguments(), all on one context as the first's)
  /// and `aux` (one per list_auxiliary_states()); returns its outputs. While autograd records,
  /// the arguments that need a gradient get one through the graph's backward.
  std::vector<NDArray> operator()(const std::vector<NDArray>& args, const std::vector<NDArray>& aux);

  const Symbol& symbol() const { return symbol_; }
  /// MXNet's CachedOp._register_op_hook: from the next call `callback` gets each node's outputs
  /// (with `monitor_all` its inputs too) as the node runs, named as Executor's monitor names
  /// them; the graph then runs node by node, unfused. A null callback stops it.
  void set_monitor_callback(MonitorCallback callback, bool monitor_all = false);

 private:
  struct Compiled;

  Symbol symbol_;
  std::vector<std::string> arg_names_;  // list_arguments(), walked once
  size_t num_aux_;
  bool static_alloc_;
  bool op_by_op_;  // the graph has an op with value-dependent shapes
  ExecutorOptions options_;
  MonitorCallback monitor_;
  bool monitor_all_ = false;
  std::map<std::string, std::unique_ptr<Compiled>> compiled_;
};

}  // namespace braid::symbol
