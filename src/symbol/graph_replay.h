#pragma once
// Internal: CUDA graphs for hybridized blocks. On a GPU, a static plan (CachedOp with
// static_alloc, one plan per shape) runs its forward and its backward each as one engine
// operation (bulk execution); GraphReplay captures that operation's kernels into a CUDA graph at
// its second call and relaunches the graph from the third on, one launch instead of one per
// kernel. The graph keeps the addresses it was captured with: the arrays from outside the plan
// whose address changes from call to call (a new batch, fresh gradient arrays) are bound to
// staging buffers of the graph's own, copied in before and out after each launch; when another
// one moves, the graph is captured again. Plans drawing random numbers (Dropout) are not
// captured (their seeds would be replayed). BRAID_CUDA_GRAPHS=0 turns graphs off.
#include <memory>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "exec_plan.h"
#include "imperative/push_op.h"

namespace braid::symbol::detail {

/// Whether static runs of `plan` may be replayed as CUDA graphs.
bool graphs_allowed(const Plan& plan);

class GraphReplay {
 public:
  GraphReplay();
  ~GraphReplay();

  /// `outside`: the arrays the next run reads or writes that are not the plan's own buffers;
  /// `training`: its mode (the kernels differ, so a graph serves one mode); `fresh`: those made
  /// anew for each call (a backward's gradient arrays), staged even when the storage pool happens
  /// to give them the same address again. Returns the arrays to bind in their place (staging
  /// buffers for those that move).
  std::vector<NDArray> bind(const std::vector<NDArray>& outside, bool training, const std::vector<bool>& fresh);
  /// The engine operation running `bulk` (the run's kernels as one) for the arrays last given to
  /// bind(): it copies them into their staging buffers, captures, replays or runs the kernels,
  /// and copies the staging buffers of the arrays the run may write (`written`) back out.
  imperative::Kernel wrap(imperative::Kernel bulk, const std::vector<bool>& written);

 private:
  enum class Mode { Direct, Capture, Replay };
  struct Graph;

  Mode mode_ = Mode::Direct;
  int calls_ = 0;
  bool training_ = false;
  std::vector<NDArray> outside_, staging_;  // staging_[i] is None where outside_[i] does not move
  std::vector<const void*> last_;           // the addresses of the previous call
  std::shared_ptr<Graph> graph_;
};

}  // namespace braid::symbol::detail
