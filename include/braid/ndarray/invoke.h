#pragma once
/// Running a registered operator on NDArrays: the imperative path every nd:: function takes.
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::nd {

/// Runs operator `op` on `inputs` (arguments then aux states) asynchronously and returns its
/// visible outputs. Shapes and dtypes are inferred and checked now, so a bad call throws here.
/// When `out` is given, results are written into those arrays instead (MXNet's out=).
/// Ops without inputs are placed on the context named by the "ctx" attribute (default cpu(0));
/// others run on their inputs' context, or on `out`'s when that is another CPU context (a copy
/// between CPU contexts runs on the worker of the context that will use it).
std::vector<NDArray> invoke(const std::string& op, const std::vector<NDArray>& inputs, const op::AttrMap& attrs = {},
                            const std::vector<NDArray>& out = {});

/// Like invoke, with inputs by argument name ("data", "weight"; an empty name: the next free
/// slot), as MXNet's Python nd.<Op>(data=x, weight=w). A variadic op's count attribute
/// (num_args) is filled in from the inputs; a missing input is an error naming it.
std::vector<NDArray> invoke_named(const std::string& op, const std::vector<std::pair<std::string, NDArray>>& inputs,
                                  op::AttrMap attrs = {}, const std::vector<NDArray>& out = {});

/// Like invoke, but returns every output, the hidden ones too (Dropout's mask, BatchNorm's batch
/// statistics): what backward needs.
std::vector<NDArray> invoke_all(const std::string& op, const std::vector<NDArray>& inputs,
                                const op::AttrMap& attrs = {});

/// Pushes the backward of `op` (in the current training mode, autograd::is_training()): from the output gradients and
/// what the forward saw and produced
/// (`inputs` = arguments then aux, `outputs` = all outputs from invoke_all), writes (or, with
/// `accumulate`, adds) the gradient of each argument into `in_grads`; a None entry is skipped.
void invoke_backward(const std::string& op, const op::AttrMap& attrs, const std::vector<NDArray>& out_grads,
                     const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                     const std::vector<NDArray>& in_grads, bool accumulate = false);

/// Same, for an op with one visible output.
NDArray invoke1(const std::string& op, const std::vector<NDArray>& inputs, const op::AttrMap& attrs = {});

/// Blocks until every pushed operation is done; re-throws the first error (MXNet's nd.waitall).
void waitall();

/// The OpenMP threads a kernel on `ctx` runs with. CPU contexts share the cores: each gets
/// BRAID_CPU_KERNEL_NTHREADS if set, else the process's compute threads (OMP_NUM_THREADS, or the
/// cores, or fewer when other processes keep them busy: braid/device/cpu_share.h) divided by the
/// number of CPU contexts that have run kernels so far and by the engine's workers per context
/// (BRAID_CPU_WORKER_NTHREADS), at least 1.
int kernel_threads(Context ctx);

/// The engine priority of every operation this thread pushes through NDArray calls while the
/// scope lives (among ready operations on a device, higher runs first; default 0). MXNet's
/// KVStore users push parameter i at -i; see docs/kvstore.md for why Braid's Trainer and Module
/// do not.
class PriorityScope {
 public:
  explicit PriorityScope(int priority);
  ~PriorityScope();
  PriorityScope(const PriorityScope&) = delete;
  PriorityScope& operator=(const PriorityScope&) = delete;

 private:
  int saved_;
};

}  // namespace braid::nd
