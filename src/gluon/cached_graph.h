#pragma once
// Internal: a hybridized block's graph run through symbol::CachedOp, its inputs mapped to the
// block's arguments and the rest of the graph's inputs to the block's Parameters.
#include <string>
#include <vector>

#include "braid/gluon/parameter.h"
#include "braid/symbol/cached_op.h"
#include "braid/symbol/symbol.h"

namespace braid::gluon::detail {

class CachedGraph {
 public:
  /// `params` holds a Parameter for every input of `symbol` other than `input_names`, by name.
  CachedGraph(Symbol symbol, std::vector<std::string> input_names, const ParameterDict& params, bool static_alloc);

  std::vector<NDArray> operator()(const std::vector<NDArray>& inputs);
  const Symbol& symbol() const { return op_.symbol(); }
  void set_monitor_callback(MonitorCallback callback, bool monitor_all) {
    op_.set_monitor_callback(std::move(callback), monitor_all);
  }

 private:
  symbol::CachedOp op_;
  std::vector<int> arg_input_;  // per argument: index into the inputs, or -1 for a parameter
  std::vector<ParameterPtr> arg_params_, aux_params_;
};

}  // namespace braid::gluon::detail
