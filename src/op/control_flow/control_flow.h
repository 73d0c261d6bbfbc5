#pragma once
// Internal: the control-flow operators (_foreach, _while_loop, _cond), whose subgraphs run as
// CachedOps on the pushing thread.
#include <functional>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_control_flow_ops(Registry& r);
void register_foreach_op(Registry& r);     // foreach.cc
void register_while_loop_op(Registry& r);  // while_loop.cc
void register_cond_op(Registry& r);        // cond.cc

/// values[at[0]], values[at[1]], ...: a subgraph's inputs from the node's.
template <class T>
std::vector<T> gather(const std::vector<T>& values, const std::vector<size_t>& at) {
  std::vector<T> picked;
  for (size_t i : at) picked.push_back(values[i]);
  return picked;
}

/// The argument names of a control-flow node of n inputs: data0, data1, ...
std::vector<std::string> numbered_inputs(size_t n);

/// Copies a control-flow op's results into its output arrays (zero-size ones skipped).
void write_outputs(const std::vector<NDArray>& results, const std::vector<NDArray>& out);

/// `step` with a leading axis of `length` (0: unknown): a loop's stacked step outputs.
Shape with_leading_axis(int64_t length, const Shape& step);

/// Whether a condition subgraph's result, a one-element array, is nonzero (waits for it).
bool is_true(const NDArray& condition, const char* op);

/// A control-flow operator's gradient: runs `forward` again on copies of `in` while autograd
/// records, differentiates its outputs with `out_grads`, and writes (or adds, by `req`) the
/// result into `in_grads`. Inputs of integer dtypes get no gradient.
void backward_by_rerunning(const std::vector<NDArray>& in, const std::vector<NDArray>& out_grads,
                           const std::vector<NDArray>& in_grads, const std::vector<OpReq>& req, bool training,
                           const std::function<std::vector<NDArray>(const std::vector<NDArray>&)>& forward);

}  // namespace braid::op::detail
