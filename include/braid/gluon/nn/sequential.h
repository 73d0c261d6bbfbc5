#pragma once
/// Containers that run their children in order (MXNet's nn.Sequential, nn.HybridSequential).
#include "braid/gluon/block.h"

namespace braid::gluon::nn {

/// Children run in order. Model parallelism: a child whose parameters all live on one context
/// other than its input's (initialize it with that context) gets its input copied there, and
/// gradients flow back across the copy.
class Sequential : public Block {
 public:
  explicit Sequential(std::optional<std::string> prefix = std::nullopt) : Block("sequential", std::move(prefix)) {}
  /// Appends blocks (registered as "0", "1", ...). C++ leaves the evaluation order of arguments
  /// unspecified, so blocks created in one add(...) call may be numbered out of order (dense1_
  /// before dense0_): where names matter, create them in separate statements.
  template <class... B>
  Sequential& add(std::shared_ptr<B>... blocks) {
    (register_child(std::move(blocks)), ...);
    return *this;
  }
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  size_t size() const { return children().size(); }
  BlockPtr operator[](size_t i) const;

 protected:
  std::string describe() const override { return "Sequential"; }
  bool names_first_op_fwd() const override { return false; }
};

/// Like Sequential, but every child must be a HybridBlock, so the whole can be hybridized.
class HybridSequential : public HybridBlock {
 public:
  explicit HybridSequential(std::optional<std::string> prefix = std::nullopt)
      : HybridBlock("hybridsequential", std::move(prefix)) {}
  template <class... B>
  HybridSequential& add(std::shared_ptr<B>... blocks) {
    static_assert((std::is_base_of_v<HybridBlock, B> && ...), "HybridSequential holds HybridBlocks only");
    (register_child(std::move(blocks)), ...);
    return *this;
  }
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  size_t size() const { return children().size(); }
  BlockPtr operator[](size_t i) const;

 protected:
  std::string describe() const override { return "HybridSequential"; }
  bool names_first_op_fwd() const override { return false; }
  /// For containers built on this one (HybridConcurrent): their own class name as the hint.
  HybridSequential(const std::string& hint, std::optional<std::string> prefix) : HybridBlock(hint, std::move(prefix)) {}
};

}  // namespace braid::gluon::nn
