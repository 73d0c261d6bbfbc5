#pragma once
/// Executor: a Symbol bound to arrays and compiled into a plan (MXNet's mx.executor.Executor).
///
///   Executor ex = Executor::simple_bind(net, cpu(), {{"data", Shape{64, 1, 28, 28}}});
///   ex.arg_dict()["data"].assign(batch);
///   ex.forward(/*is_train=*/true);
///   ex.backward();                 // gradients into grad_dict()
///   NDArray out = ex.outputs()[0];
///
/// Binding runs the graph passes once: common subexpression elimination, shape and dtype
/// inference, dead-node elimination (only nodes the outputs depend on are kept, and backward runs
/// only where a wanted gradient depends on it), fusion of chains of element-wise ops into one
/// kernel, and memory planning, which lets intermediate results and
/// gradients share buffers whose lifetimes do not overlap and runs eligible ops in place.
/// forward and backward then push the planned kernels to the engine and return at once.
///
/// Output arrays are rewritten by the next forward; copy them to keep them.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "braid/base/grad_req.h"
#include "braid/ndarray/ndarray.h"
#include "braid/symbol/symbol.h"

namespace braid {

namespace symbol::detail {
struct Plan;
struct RunState;
struct CompressedArrays;
}  // namespace symbol::detail

/// What a plan allocates besides the bound arrays.
struct PlanStats {
  /// Bytes of intermediate results and gradients if each had its own buffer.
  int64_t unplanned_bytes = 0;
  /// Bytes of the buffers the plan allocates: its peak activation memory.
  int64_t planned_bytes = 0;
  int forward_kernels = 0;    // kernels one forward pushes (a fused chain counts once)
  int backward_kernels = 0;   // kernels one backward pushes
  int fused_ops = 0;          // element-wise ops folded into fused kernels
  int fused_relus = 0;        // relus folded into the convolutions before them
  int inplace_ops = 0;        // kernels writing over their input's buffer (forward or backward)
  int skipped_backward = 0;   // kernels whose gradient no wanted gradient depends on
  int channels_last_ops = 0;  // convolutions and poolings moved to NHWC data
};

struct ExecutorOptions {
  bool plan_memory = true;  // false: every intermediate gets its own buffer
  bool fuse = true;         // fuse chains of element-wise ops, and relus into convolutions
  /// Run the forward and the backward each as one engine operation, the kernels back to back
  /// without scheduling between them (MXNet's bulk execution); only when every node runs on one
  /// context. Default: BRAID_EXEC_BULK_EXEC (or MXNET_EXEC_BULK_EXEC_TRAIN), on unless 0.
  bool bulk = default_bulk();
  static bool default_bulk();
  /// Run float32 2-D convolutions and poolings, and the element-wise ops between them, on
  /// channels-last (NHWC) data, with transposes only where the graph enters and leaves such a
  /// region: oneDNN's convolutions compute in NHWC, so this saves their reorders of every
  /// activation. Results equal the NCHW graph's to rounding. Default: BRAID_EXEC_CHANNELS_LAST,
  /// on unless 0.
  bool channels_last = default_channels_last();
  static bool default_channels_last();
  /// Compute nodes that compute the same thing (the same operator and attributes over the same
  /// inputs) once, as MXNet's executor does; nodes drawing random numbers, running Python code or
  /// updating their inputs are kept apart. optimized_symbol() shows the graph that runs. Default:
  /// BRAID_ELIMINATE_COMMON_EXPR (or MXNET_ELIMINATE_COMMON_EXPR), on unless 0.
  bool eliminate_common_expr = default_eliminate_common_expr();
  static bool default_eliminate_common_expr();
  /// Compute the gradient of every argument of each node that runs backward, wanted or not, so a
  /// monitor sees all of them (set by Executor::set_monitor_callback).
  bool all_input_grads = false;
};

/// MXNet's monitor callback: an array of the graph as a node is run, its name as MXNet's executor
/// gives it ("fc1_output", "fc1_weight" for inputs, "fc1_backward_output0" for gradients) and the
/// operator of its node ("FullyConnected", "_backward_FullyConnected").
using MonitorCallback = std::function<void(const std::string& name, const std::string& op, const NDArray& array)>;

class Executor {
 public:
  /// MXNet's Symbol.bind. `args` and `aux_states` in list_arguments / list_auxiliary_states
  /// order; `args_grad` one per argument (None where no gradient is wanted) or empty;
  /// `grad_req` one per argument, or one for all, or empty (Write where args_grad has an array).
  /// Arrays may be compressed (row_sparse, csr): the graph computes on dense copies, taken of
  /// the arguments at each forward and written back to compressed gradient arrays, in their
  /// storage type, after each backward.
  /// Nodes with a `__ctx_group__` attribute run on group2ctx's context for it, with copies
  /// between contexts inserted.
  static Executor bind(const Symbol& symbol, Context ctx, const std::vector<NDArray>& args,
                       const std::vector<NDArray>& args_grad = {}, const std::vector<GradReq>& grad_req = {},
                       const std::vector<NDArray>& aux_states = {},
                       const std::map<std::string, Context>& group2ctx = {}, const ExecutorOptions& options = {});
  /// MXNet's Symbol.simple_bind: allocates every argument, gradient (per grad_req; arguments
  /// named in `no_grad` get none) and aux state from the given input shapes (and dtypes,
  /// float32 by default). Arguments start at zero, in the storage type `stypes` gives them, else
  /// their variable's (Variable(stype=...)); a row_sparse argument gets a row_sparse gradient.
  static Executor simple_bind(const Symbol& symbol, Context ctx, const std::map<std::string, Shape>& shapes,
                              GradReq grad_req = GradReq::Write, const std::map<std::string, DType>& types = {},
                              const std::vector<std::string>& no_grad = {},
                              const std::map<std::string, Context>& group2ctx = {}, const ExecutorOptions& options = {},
                              const std::map<std::string, StorageType>& stypes = {});

  Executor(Executor&&) noexcept;
  Executor& operator=(Executor&&) noexcept;
  ~Executor();

  /// Runs the graph. `inputs` are copied into the named arguments first (MXNet's forward(**kw)).
  void forward(bool is_train = false, const std::map<std::string, NDArray>& inputs = {});
  /// Back-propagates the last forward. `out_grads` one per output; missing ones (or
  /// None) are ones. Loss outputs (SoftmaxOutput, LinearRegressionOutput, MakeLoss) ignore them.
  void backward(const std::vector<NDArray>& out_grads = {});

  const std::vector<NDArray>& outputs() const;
  const std::vector<NDArray>& arg_arrays() const;
  const std::vector<NDArray>& grad_arrays() const;  // None where no gradient
  const std::vector<NDArray>& aux_arrays() const;
  std::map<std::string, NDArray> arg_dict() const;
  std::map<std::string, NDArray> grad_dict() const;  // arguments with a gradient
  std::map<std::string, NDArray> aux_dict() const;
  std::map<std::string, NDArray> output_dict() const;

  /// A new executor for other input shapes sharing this one's memory, as MXNet's: arrays whose
  /// shape stays (parameters) are the same arrays, smaller ones are views of the start of theirs,
  /// and the intermediate values and outputs reuse this executor's buffers where they fit. So the
  /// two executors' outputs overlap: a forward of one overwrites the other's. Growing an array
  /// beyond its size needs allow_up_sizing (it is then allocated anew); arguments other than those
  /// given must keep their shapes unless partial_shaping.
  Executor reshape(const std::map<std::string, Shape>& shapes, bool partial_shaping = false,
                   bool allow_up_sizing = false) const;

  const Symbol& symbol() const { return symbol_; }
  /// The graph that runs: symbol() after the graph passes that change nodes (common
  /// subexpression elimination), MXNet's get_optimized_symbol.
  const Symbol& optimized_symbol() const { return optimized_; }
  /// The context it was bound to (nodes of a ctx_group may run elsewhere).
  Context context() const { return ctx_; }
  const PlanStats& plan_stats() const;
  /// The plan as text: one line per kernel with its buffers.
  std::string debug_str() const;

  /// MXNet's set_monitor_callback: from the next forward, `callback` gets each node's outputs (and
  /// with `monitor_all` its inputs) as the node runs, and after a backward the gradients each node
  /// computed. The executor then runs node by node, unfused, with every argument's gradient
  /// computed (a debugging mode; it rebinds, so take outputs() afresh). A null callback stops it.
  void set_monitor_callback(MonitorCallback callback, bool monitor_all = false);

 private:
  Executor() = default;
  /// bind, with the intermediate values in `shared_slots`' memory where they fit (reshape).
  static Executor bind_sharing(const Symbol& symbol, Context ctx, const std::vector<NDArray>& args,
                               const std::vector<NDArray>& args_grad, const std::vector<GradReq>& grad_req,
                               const std::vector<NDArray>& aux_states, const std::map<std::string, Context>& group2ctx,
                               const ExecutorOptions& options, const std::vector<NDArray>& shared_slots);

  Symbol symbol_;
  Symbol optimized_;
  Context ctx_;
  std::map<std::string, Context> group2ctx_;
  ExecutorOptions options_;
  std::vector<GradReq> grad_req_;
  std::shared_ptr<const symbol::detail::Plan> plan_;
  std::shared_ptr<symbol::detail::RunState> state_;
  std::shared_ptr<symbol::detail::CompressedArrays> compressed_;  // null unless arrays are compressed
  bool forwarded_ = false;                                        // a forward has run
};

}  // namespace braid
