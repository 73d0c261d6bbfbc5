#pragma once
/// Containers that feed their input to every child and concatenate the outputs (MXNet's
/// gluon.contrib.nn.HybridConcurrent), and the layer that returns its input (Identity), a
/// placeholder branch in such a container (DenseNet's dense layers).
#include "braid/gluon/nn/sequential.h"

namespace braid::gluon::nn {

/// Children run side by side on the same input; outputs concatenated along `axis` (Concat). A
/// HybridSequential in every other respect: add, indexing, size, printing.
class HybridConcurrent : public HybridSequential {
 public:
  explicit HybridConcurrent(int axis = -1, std::optional<std::string> prefix = std::nullopt)
      : HybridSequential("hybridconcurrent", std::move(prefix)), axis_(axis) {}
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  int axis() const { return axis_; }

 protected:
  std::string describe() const override { return "HybridConcurrent"; }

 private:
  int axis_;
};

class Identity : public HybridBlock {
 public:
  explicit Identity(std::optional<std::string> prefix = std::nullopt) : HybridBlock("identity", std::move(prefix)) {}
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override { return inputs; }

 protected:
  std::string describe() const override { return "Identity"; }
  bool names_first_op_fwd() const override { return false; }
};

}  // namespace braid::gluon::nn
