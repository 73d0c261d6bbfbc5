#pragma once
// Internal: shape and dtype inference over an indexed graph, per entry. Known values seed the
// entries; each operator's inference completes what it can in both directions, sweeping forward
// and backward over the nodes until nothing changes. Variables' `__shape__`/`__dtype__`
// attributes are hints, as in MXNet.
#include <vector>

#include "braid/base/dtype.h"
#include "braid/base/shape.h"
#include "graph.h"

namespace braid::symbol::detail {

/// Completes `shapes` (one per entry; Shape() or 0 dims unknown). Throws braid::Error naming the
/// node on conflicting shapes. Returns whether every entry is fully known.
bool infer_shapes(const IndexedGraph& g, std::vector<Shape>& shapes);
/// Completes `types` (one per entry; kDTypeUnknown unknown). Returns whether all are known.
bool infer_types(const IndexedGraph& g, std::vector<DType>& types);

}  // namespace braid::symbol::detail
