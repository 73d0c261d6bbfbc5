#pragma once
/// Embedding (MXNet's nn.Embedding): integer indices of any shape S -> rows of `weight`
/// (input_dim, output_dim), output S + (output_dim,).
#include "braid/gluon/block.h"

namespace braid::gluon::nn {

struct EmbeddingOptions {
  DType dtype = DType::Float32;
  init::InitializerPtr weight_initializer = nullptr;
  /// The weight's gradient stored row_sparse (only the rows a batch looks up), as MXNet's.
  bool sparse_grad = false;
  std::optional<std::string> prefix = std::nullopt;
};

class Embedding : public HybridBlock {
 public:
  Embedding(int64_t input_dim, int64_t output_dim, EmbeddingOptions opt = {});
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  const ParameterPtr& weight() const { return weight_; }

 protected:
  std::string describe() const override;

 private:
  int64_t input_dim_, output_dim_;
  DType dtype_;
  bool sparse_grad_;
  ParameterPtr weight_;
};

}  // namespace braid::gluon::nn
