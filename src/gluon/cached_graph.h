#pragma once
// Internal: a Symbol run as one unit from imperative code (MXNet's CachedOp), what hybridized
// blocks and SymbolBlock call. Plans are compiled per input shapes, dtypes, context and set of
// wanted gradients, and kept. Inside autograd recording the whole graph is one node of the tape,
// whose backward runs the plan's backward.
//
// Without static_alloc every call allocates its planned buffers afresh (from the storage pool),
// so results and pending backward passes of earlier calls stay valid. With static_alloc one set
// of buffers per plan is reused: outputs are overwritten by the next call, and a backward must
// come before the next forward, as in MXNet.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "braid/gluon/parameter.h"
#include "braid/symbol/executor.h"
#include "braid/symbol/symbol.h"

namespace braid::symbol::detail {
struct Plan;
struct RunState;
}  // namespace braid::symbol::detail

namespace braid::gluon::detail {

class CachedGraph {
 public:
  /// `params` holds a Parameter for every input of `symbol` other than `input_names`, by name.
  CachedGraph(Symbol symbol, std::vector<std::string> input_names, const ParameterDict& params, bool static_alloc);

  std::vector<NDArray> operator()(const std::vector<NDArray>& inputs);
  const Symbol& symbol() const { return symbol_; }

 private:
  struct Compiled {
    std::shared_ptr<const symbol::detail::Plan> plan;
    std::shared_ptr<symbol::detail::RunState> state;  // static_alloc only
  };

  Symbol symbol_;
  size_t num_args_ = 0;
  std::vector<int> arg_input_;  // per argument: index into the inputs, or -1 for a parameter
  std::vector<ParameterPtr> arg_params_, aux_params_;
  bool static_alloc_;
  ExecutorOptions options_;
  std::map<std::string, Compiled> compiled_;
};

}  // namespace braid::gluon::detail
