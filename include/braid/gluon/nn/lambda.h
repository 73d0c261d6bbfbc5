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

/// What Lambda and HybridLambda share: forward calls the function, repr is "Class(name)".
template <class Base>
class FunctionBlock : public Base {
 public:
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override { return f_.fn(inputs); }

 protected:
  FunctionBlock(const std::string& hint, std::string cls, NamedFunction f, std::optional<std::string> prefix)
      : Base(hint, std::move(prefix)), cls_(std::move(cls)), f_(std::move(f)) {}
  std::string describe() const override { return cls_ + "(" + f_.name + ")"; }

 private:
  std::string cls_;
  NamedFunction f_;
};

class Lambda : public FunctionBlock<Block> {
 public:
  explicit Lambda(LambdaFunction fn, std::string name = "<lambda>", std::optional<std::string> prefix = std::nullopt)
      : FunctionBlock("lambda", "Lambda", {std::move(fn), std::move(name)}, std::move(prefix)) {}
  explicit Lambda(const std::string& op, std::optional<std::string> prefix = std::nullopt)
      : FunctionBlock("lambda", "Lambda", NamedFunction::from_op(op), std::move(prefix)) {}
};

/// Like Lambda, but a HybridBlock, so that it can sit in a HybridSequential. The callable must use
/// only registered operators (nd:: functions) for the block to be hybridizable.
class HybridLambda : public FunctionBlock<HybridBlock> {
 public:
  explicit HybridLambda(LambdaFunction fn, std::string name = "<lambda>",
                        std::optional<std::string> prefix = std::nullopt)
      : FunctionBlock("hybridlambda", "HybridLambda", {std::move(fn), std::move(name)}, std::move(prefix)) {}
  explicit HybridLambda(const std::string& op, std::optional<std::string> prefix = std::nullopt)
      : FunctionBlock("hybridlambda", "HybridLambda", NamedFunction::from_op(op), std::move(prefix)) {}
};

}  // namespace braid::gluon::nn
