#pragma once
// Internal: common subexpression elimination, the graph pass MXNet's executor runs before binding
// (MXNET_ELIMINATE_COMMON_EXPR).
#include "braid/symbol/symbol.h"

namespace braid::symbol::detail {

/// A copy of `symbol`'s graph in which nodes computing the same thing are one node: the same
/// operator with the same attributes over the same inputs, unless it draws random numbers, runs
/// Python code or updates its inputs or auxiliary states. Outputs that become one value are
/// separated again by `_copy` nodes named `<node>_<k>_copy`, as MXNet's. The arguments keep their
/// order; `symbol` is left as it was.
Symbol eliminate_common_expr(const Symbol& symbol);

}  // namespace braid::symbol::detail
