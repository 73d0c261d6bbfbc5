#pragma once
/// The definition of one operator, shared by the imperative path (NDArray), autograd and the
/// symbolic executor. Attributes arrive as MXNet's strings and are parsed once into a typed
/// parameter struct (held in std::any); every other function receives that parsed value.
#include <any>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "braid/base/context.h"
#include "braid/op/tensor.h"

namespace braid {
class NDArray;  // braid/ndarray/ndarray.h
}

namespace braid::op {

/// MXNet attributes: name -> string value ("(3, 3)", "True", "relu").
using AttrMap = std::map<std::string, std::string>;

/// What a kernel may use beyond its tensors.
struct OpContext {
  bool is_train = false;
  Context ctx;
  std::mt19937_64* rng = nullptr;  // set for ops with needs_rng
};

/// Tensors of a forward call. `inputs` are the arguments (list_arguments order); `aux` the
/// auxiliary states (BatchNorm's moving mean/var), which the forward may update in training.
struct ForwardArgs {
  std::vector<TBlob> inputs;
  std::vector<TBlob> outputs;
  std::vector<OpReq> req;  // one per output
  std::vector<TBlob> aux;
};

/// Tensors of a backward call: everything forward saw and produced, the gradients of the outputs,
/// and where to write the gradients of the inputs (req Null: not wanted, Add: accumulate).
struct BackwardArgs {
  std::vector<TBlob> out_grads;
  std::vector<TBlob> inputs;
  std::vector<TBlob> outputs;
  std::vector<TBlob> aux;
  std::vector<TBlob> in_grads;
  std::vector<OpReq> req;  // one per input gradient
};

/// What an op's backward reads besides the output gradients (MXNet's gradient dependencies):
/// the executor keeps forward results alive until backward only where they are read. A kernel
/// must not touch what it declares unread; aux states and the op's parameters are always there.
struct BackwardReads {
  bool inputs = true;
  bool outputs = true;
};

using ForwardKernel = std::function<void(const OpContext&, const std::any&, const ForwardArgs&)>;
using BackwardKernel = std::function<void(const OpContext&, const std::any&, const BackwardArgs&)>;

/// An operator's kernels for one device type.
struct Kernels {
  ForwardKernel forward;
  /// Empty where the op has no gradient (comparisons, random sampling) or, on a device
  /// other than the CPU, no gradient kernel yet.
  BackwardKernel backward;
  /// The kernels take float16 and bfloat16 arrays as they are; otherwise such arrays reach them
  /// as float32 copies, rounded back after the call (src/op/common/float16_compute.cc).
  bool takes_16bit = false;
};

/// An op computed by code that runs on the thread pushing it and pushes its own work over the
/// op's NDArrays, instead of by a kernel the engine runs: Python custom operators. Imperative
/// calls, autograd and executors call these where they would push a kernel, with the same
/// arrays, so the engine orders that work like any other; recording and tracing pause meanwhile.
struct HostFunctions {
  using Forward = std::function<void(const std::any& param, bool training, const std::vector<NDArray>& inputs,
                                     const std::vector<NDArray>& outputs, const std::vector<NDArray>& aux)>;
  /// Every output and argument has an array: zeros for outputs without a gradient, scratch
  /// arrays for the gradients whose req is Null.
  using Backward = std::function<void(const std::any& param, bool training, const std::vector<OpReq>& req,
                                      const std::vector<NDArray>& out_grads, const std::vector<NDArray>& inputs,
                                      const std::vector<NDArray>& outputs, const std::vector<NDArray>& in_grads,
                                      const std::vector<NDArray>& aux)>;
  Forward forward;
  Backward backward;
};

struct OpDef {
  std::string name;
  std::string doc;
  /// Parses and validates the attributes; throws braid::Error naming the op and the attribute.
  std::function<std::any(const AttrMap&)> parse = [](const AttrMap&) { return std::any(); };
  /// Names of the arguments ("data", "weight", "bias"), which fixes their number.
  std::function<std::vector<std::string>(const std::any&)> list_arguments;
  /// Names of the auxiliary states (passed after the arguments in the imperative call).
  std::function<std::vector<std::string>(const std::any&)> list_aux = [](const std::any&) {
    return std::vector<std::string>{};
  };
  std::function<int(const std::any&)> num_outputs = [](const std::any&) { return 1; };
  /// Outputs a user sees (BatchNorm computes 3, shows 1).
  std::function<int(const std::any&)> num_visible_outputs;
  /// Names of the visible outputs (MXNet's FListOutputNames: RNN's "output", "state_output"),
  /// which a symbol's list_outputs prefixes with the node name; empty: "output", or "output0",
  /// "output1", ... when there are several.
  std::function<std::vector<std::string>(const std::any&)> list_outputs;
  /// Completes unknown shapes (Shape() or 0-dims) from known ones in both directions where it can;
  /// throws on inconsistent shapes. Returns true once every shape is fully known.
  std::function<bool(const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>& aux)>
      infer_shape;
  /// For an op whose output shapes depend on its input values (boolean_mask), where infer_shape
  /// leaves them unknown: the shapes from the inputs, which it reads (waiting for them). Imperative
  /// calls use it; a graph holding such an op runs op by op (symbol::CachedOp).
  std::function<std::vector<Shape>(const std::any&, const std::vector<NDArray>& inputs)> value_dependent_shape;
  /// Completes dtypes; default: all inputs, outputs and aux share the first known dtype.
  std::function<void(const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux)>
      infer_type;
  /// The kernels per device type. Every operator has CPU kernels (they serve cpu, cpu_pinned and
  /// cpu_shared contexts); GPU kernels are registered by the op family's .cu file when Braid is
  /// built with CUDA. Whether an op has a gradient at all is said by its CPU backward.
  Kernels cpu;
  Kernels gpu;
  /// Set instead of kernels for an op that runs on the pushing thread (HostFunctions): it runs on
  /// any context and has a gradient when `host.backward` is set.
  HostFunctions host;
  bool runs_on_host() const { return static_cast<bool>(host.forward); }
  /// The kernels that run on `ctx`, the one place where a device's kernels are chosen (invoke,
  /// autograd, the executor's plan and its fused chains). Throws braid::Error naming the op and
  /// the context when the op cannot run there.
  const Kernels& kernels(Context ctx) const;
  /// True for ops whose gradient is zero almost everywhere (floor, sign, round): they get a
  /// backward writing zeros and need no gradient-check entry.
  bool zero_gradient = false;
  std::function<BackwardReads(const std::any&)> backward_reads = [](const std::any&) { return BackwardReads{}; };
  bool needs_rng = false;
  /// One argument, one output of its shape, each output element computed from the input element
  /// at the same index only, by kernels that tolerate the output (and in backward the input
  /// gradient) sharing memory with the input (the output gradient): the executor may run it in
  /// place and fuse chains of such ops into one pass over memory.
  bool elementwise = false;
  /// Forward writes its aux states in training (BatchNorm's moving statistics).
  bool mutates_aux = false;
  /// Backward writes its aux states (IdentityAttachKLSparseReg's moving average of activations).
  bool backward_mutates_aux = false;
  /// Arguments (indices into list_arguments) that forward updates in place whatever the mode:
  /// MXNet's FMutateInputs, used by the optimizer updates for their states (sgd_mom_update's
  /// `mom`, adam_update's `mean` and `var`). They stay arguments, as in MXNet, rather than aux
  /// states, because mutates_aux writes only in training and aux states are a different list.
  /// The imperative path pushes them as engine writes; such ops have no gradient. A function of
  /// the param: the multi-weight updates mutate one state per weight.
  std::function<std::vector<int>(const std::any&)> mutate_inputs = [](const std::any&) { return std::vector<int>{}; };
  /// The attribute giving the number of inputs of a variadic op ("num_args" for concat): a
  /// symbolic call fills it in from the number of inputs given (MXNet's key_var_num_args).
  std::string key_var_num_args;

  /// Executor fusion with a relu that reads output 0 (optional; Convolution): the param of an
  /// op whose output 0 is relu(what it computed). Its backward then receives the gradient with
  /// respect to the relu's output and applies relu's gradient itself, unless `grad_before_relu`:
  /// its only reader already took relu's gradient (see fuse_input_relu_grad).
  std::function<std::any(const std::any& param, bool grad_before_relu)> fuse_output_relu;
  /// Executor fusion (optional; max Pooling): for an op whose input 0 is a relu's output read by
  /// nothing else, the param whose backward also applies that relu's gradient, from the op's own
  /// output 0; an empty std::any when this param cannot (average pooling).
  std::function<std::any(const std::any& param)> fuse_input_relu_grad;

  bool has_gradient() const { return static_cast<bool>(cpu.backward) || static_cast<bool>(host.backward); }
  bool differentiable() const { return has_gradient() && !zero_gradient; }
};

}  // namespace braid::op
