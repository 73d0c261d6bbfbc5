// Internal: the arrays one run of a plan uses, and pushing its forward and backward kernels.
// A fresh state per call lets earlier results live on (hybridize without static_alloc); one
// state reused gives static allocation.
#pragma once
#include <memory>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "exec_plan.h"
#include "graph_replay.h"

namespace braid::symbol::detail {

struct RunState {
  std::vector<NDArray> args, aux, arg_grads;  // bound arrays (arg_grads None where not wanted)
  std::vector<NDArray> slots;
  std::vector<NDArray> values;  // per plan value; None for values no kernel touches
  std::vector<NDArray> outputs;
  bool training = false;
  // Static states of plans that allow it (graphs_allowed) replay their runs as CUDA graphs.
  std::unique_ptr<GraphReplay> forward_graph, backward_graph;
  // When set, runs push step by step and report their arrays here (monitor.h).
  MonitorCallback monitor;
  bool monitor_all = false;
  // The bound variables' names, which a monitored executor reports before the node inputs they
  // feed (MXNet's graph executor does; its cached ops, Gluon's, do not).
  std::vector<std::string> arg_names, aux_names;
};

/// Allocates the plan's slots and makes every value's array. A slot fits in one of `shared_slots`
/// (same context and dtype, enough elements, not yet taken) uses its memory instead: MXNet's
/// reshaped executors share the memory of the one they came from.
std::shared_ptr<RunState> make_state(const Plan& plan, std::vector<NDArray> args, std::vector<NDArray> aux,
                                     std::vector<NDArray> arg_grads, const std::vector<NDArray>& shared_slots = {});
/// Points the state at other bound arrays of the same shapes (a cached graph's new inputs).
void bind_arrays(const Plan& plan, RunState& state, std::vector<NDArray> args, std::vector<NDArray> aux,
                 std::vector<NDArray> arg_grads);
void run_forward(const Plan& plan, RunState& state, bool is_train);
/// `head_grads` per output (None or missing: ones).
void run_backward(const Plan& plan, RunState& state, const std::vector<NDArray>& head_grads);

}  // namespace braid::symbol::detail
