#pragma once
// Pushing the forward or backward of an operator whose attributes are already parsed, for
// invoke, autograd, the symbolic executor and the stores' reductions.
#include <any>
#include <functional>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"
#include "braid/profiler/profiler.h"

namespace braid::imperative {

/// One kernel call ready to be pushed: the function and the engine variables it reads and
/// writes. Several can be run by one engine operation (the executor's bulk execution).
struct Kernel {
  std::function<void()> fn;
  std::vector<engine::VarHandle> reads, writes;
  Context ctx;
  const char* name = "";
  bool backward = false;  // the profiler names it _backward_<name>, as MXNet
  profiler::Source source = profiler::Source::Imperative;
  bool profiled = true;  // false for a merged kernel whose parts time themselves
};
void push(Kernel kernel);

/// The kernel's function, timed for the profiler while it records.
std::function<void()> profiled_fn(Kernel& kernel);

/// The engine priority of the calling thread's pushes (nd::PriorityScope sets it); set_priority
/// returns the previous one.
int priority();
int set_priority(int priority);

/// The kernels push_forward and push_backward push.
Kernel forward_kernel(const op::OpDef& def, const std::any& param, bool training, Context ctx,
                      const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs);
Kernel backward_kernel(const op::OpDef& def, const std::any& param, bool training,
                       const std::vector<NDArray>& out_grads, const std::vector<NDArray>& inputs,
                       const std::vector<NDArray>& outputs, const std::vector<NDArray>& in_grads,
                       const std::vector<op::OpReq>& req);

/// Pushes the forward of `def` on `ctx`: `inputs` are the arguments (the first `nargs`) then the
/// aux states; every output is written. Aux states are written in training when the op mutates
/// them, and the op's mutate_inputs always; ops that need randomness draw from ctx's generator.
void push_forward(const op::OpDef& def, const std::any& param, bool training, Context ctx,
                  const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs);

/// `out_grads` may hold None for outputs without a gradient (the kernel sees a null blob);
/// `req[i]` says how to store the gradient of argument i (None in_grads are skipped).
void push_backward(const op::OpDef& def, const std::any& param, bool training, const std::vector<NDArray>& out_grads,
                   const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                   const std::vector<NDArray>& in_grads, const std::vector<op::OpReq>& req);

}  // namespace braid::imperative
