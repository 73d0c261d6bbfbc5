// _contrib_SparseEmbedding: MXNet's Embedding whose weight gradient is row_sparse (Embedding with
// sparse_grad=True). Its `deterministic` flag is accepted: Braid's gradient is deterministic.
#include "sparse_embedding.h"

namespace braid::op::detail {

void register_sparse_embedding(Registry& r) {
  OpDef d = r.find("Embedding");
  d.name = "_contrib_SparseEmbedding";
  d.doc = "Embedding with a row_sparse weight gradient (sparse_grad=True); deterministic is accepted.";
  d.parse = [embedding = d.parse](const AttrMap& attrs) {
    AttrMap plain = attrs;
    plain.erase("deterministic");
    plain["sparse_grad"] = "True";
    return embedding(plain);
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
