#pragma once
/// SymbolBlock (MXNet's gluon.SymbolBlock): a block made from a Symbol, for running models
/// exported by HybridBlock::export_model — Braid's or MXNet's own.
///
///   auto net = gluon::SymbolBlock::imports("mnist-symbol.json", {"data"}, "mnist-0035.params");
///   NDArray scores = (*net)(images);  // images: (N, 1, 28, 28)
///
/// Every input of the symbol other than `input_names` is a Parameter named as in the symbol
/// (auxiliary states with grad_req null); shapes not known from the file are inferred at the
/// first call. The block runs as a compiled graph, under autograd too, so it can be trained.
#include <memory>
#include <string>
#include <vector>

#include "braid/gluon/block.h"

namespace braid::gluon {

class SymbolBlock : public HybridBlock {
 public:
  /// `outputs`: the graph (a Group for several outputs); `params`: Parameters to use for some
  /// of its inputs (others are made).
  SymbolBlock(const Symbol& outputs, std::vector<std::string> input_names,
              const ParameterDict& params = ParameterDict());

  /// Loads `symbol_file` and, when given, `param_file` (names with or without arg:/aux:) onto
  /// `ctx`. Unknown operators, missing or extra parameters and shape mismatches throw naming
  /// them.
  static std::shared_ptr<SymbolBlock> imports(const std::string& symbol_file,
                                              const std::vector<std::string>& input_names,
                                              const std::string& param_file = "",
                                              const std::vector<Context>& ctx = {cpu()});

  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  void hybridize(bool active = true, bool static_alloc = false, bool static_shape = false) override;

 protected:
  std::string describe() const override;
  std::vector<NDArray> run(const std::vector<NDArray>& inputs) override { return forward(inputs); }

 private:
  void finish_shapes(const std::vector<NDArray>& inputs);

  Symbol symbol_;
  std::vector<std::string> input_names_;
};

}  // namespace braid::gluon
