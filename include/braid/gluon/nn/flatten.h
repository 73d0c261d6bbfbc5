#pragma once
/// Flatten (MXNet's nn.Flatten): (batch, d1, d2, ...) -> (batch, d1 * d2 * ...).
#include "braid/gluon/block.h"

namespace braid::gluon::nn {

class Flatten : public HybridBlock {
 public:
  explicit Flatten(std::optional<std::string> prefix = std::nullopt) : HybridBlock("flatten", std::move(prefix)) {}
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override {
    return {call_op1("Flatten", {one_input(inputs)})};
  }

 protected:
  std::string describe() const override { return "Flatten"; }
};

}  // namespace braid::gluon::nn
