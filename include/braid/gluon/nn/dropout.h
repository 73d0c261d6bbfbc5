#pragma once
/// Dropout (MXNet's nn.Dropout): in training mode each element is zeroed with probability `rate`
/// and the kept ones scaled by 1 / (1 - rate); with `axes`, one decision is shared along those
/// axes. Outside training (and for rate 0) the output equals the input.
#include "braid/gluon/block.h"

namespace braid::gluon::nn {

class Dropout : public HybridBlock {
 public:
  explicit Dropout(double rate, std::vector<int64_t> axes = {}, std::optional<std::string> prefix = std::nullopt);
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;

 protected:
  std::string describe() const override;

 private:
  double rate_;
  std::vector<int64_t> axes_;
};

}  // namespace braid::gluon::nn
