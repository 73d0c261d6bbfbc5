#pragma once
/// Wrapping a function as a block (MXNet's nn.Lambda and nn.HybridLambda): either a C++ callable
/// over the input arrays, or the name of a registered operator ("tanh"), which is then called
/// with the inputs and no attributes.
#include <functional>

#include "braid/gluon/block.h"

namespace braid::gluon::nn {

using LambdaFunction = std::function<std::vector<NDArray>(const std::vector<NDArray>&)>;

/// The callable and the name repr shows: Python prints the function's __name__, "<lambda>" for
/// a lambda expression, the operator's name for an operator.
struct NamedFunction {
  LambdaFunction fn;
  std::string name;
  /// A registered operator; throws naming the unknown operator and close names.
  static NamedFunction from_op(const std::string& op);
};

class Lambda : public Block {
 public:
  explicit Lambda(LambdaFunction fn, std::string name = "<lambda>", std::optional<std::string> prefix = std::nullopt)
      : Block("lambda", std::move(prefix)), f_{std::move(fn), std::move(name)} {}
  explicit Lambda(const std::string& op, std::optional<std::string> prefix = std::nullopt)
      : Block("lambda", std::move(prefix)), f_(NamedFunction::from_op(op)) {}
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override { return f_.fn(inputs); }

 protected:
  std::string describe() const override { return "Lambda(" + f_.name + ")"; }

 private:
  NamedFunction f_;
};

/// Like Lambda, but a HybridBlock, so that it can sit in a HybridSequential. The callable must use
/// only registered operators (nd:: functions) for the block to be hybridizable.
class HybridLambda : public HybridBlock {
 public:
  explicit HybridLambda(LambdaFunction fn, std::string name = "<lambda>",
                        std::optional<std::string> prefix = std::nullopt)
      : HybridBlock("hybridlambda", std::move(prefix)), f_{std::move(fn), std::move(name)} {}
  explicit HybridLambda(const std::string& op, std::optional<std::string> prefix = std::nullopt)
      : HybridBlock("hybridlambda", std::move(prefix)), f_(NamedFunction::from_op(op)) {}
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override { return f_.fn(inputs); }

 protected:
  std::string describe() const override { return "HybridLambda(" + f_.name + ")"; }

 private:
  NamedFunction f_;
};

}  // namespace braid::gluon::nn
