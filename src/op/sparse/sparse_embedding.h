#pragma once
// Internal: _contrib_SparseEmbedding (sparse_embedding.cc), registered with the storage operators.
#include "braid/op/registry.h"

namespace braid::op::detail {

void register_sparse_embedding(Registry& r);

}  // namespace braid::op::detail
