#include "braid/gluon/nn/embedding.h"

#include "braid/base/error.h"

namespace braid::gluon::nn {

Embedding::Embedding(int64_t input_dim, int64_t output_dim, EmbeddingOptions opt)
    : HybridBlock("embedding", opt.prefix),
      input_dim_(input_dim),
      output_dim_(output_dim),
      dtype_(opt.dtype),
      sparse_grad_(opt.sparse_grad) {
  BRAID_CHECK(input_dim >= 1 && output_dim >= 1, "Embedding: input_dim and output_dim must be positive, got ",
              input_dim, " and ", output_dim);
  weight_ =
      register_parameter("weight", Shape({input_dim, output_dim}), GradReq::Write, opt.weight_initializer, dtype_);
  if (sparse_grad_) weight_->set_grad_stype(StorageType::RowSparse);
}

std::vector<NDArray> Embedding::forward(const std::vector<NDArray>& inputs) {
  return {call_op1("Embedding", {one_input(inputs), weight_},
                   {{"input_dim", cat(input_dim_)},
                    {"output_dim", cat(output_dim_)},
                    {"dtype", dtype_name(dtype_)},
                    {"sparse_grad", sparse_grad_ ? "True" : "False"}})};
}

std::string Embedding::describe() const {
  return cat("Embedding(", input_dim_, " -> ", output_dim_, ", ", dtype_name(dtype_), ")");
}

}  // namespace braid::gluon::nn
