#pragma once
// Internal: a graph run one operator call at a time, as imperative code would run it, for graphs
// whose shapes depend on values (boolean_mask) and so cannot be planned ahead. Autograd records
// each call as it would in imperative code.
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/symbol/node.h"

namespace braid::symbol::detail {

/// Whether a node of the graph has an op whose output shapes depend on its input values.
bool has_value_dependent_shapes(const std::vector<Entry>& outputs);

/// The graph's outputs from `args` (list_arguments order) and `aux` (list_auxiliary_states order).
std::vector<NDArray> run_op_by_op(const std::vector<Entry>& outputs, const std::vector<NDArray>& args,
                                  const std::vector<NDArray>& aux);

}  // namespace braid::symbol::detail
