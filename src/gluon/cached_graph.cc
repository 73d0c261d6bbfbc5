#include "cached_graph.h"

#include <algorithm>

#include "braid/base/error.h"

namespace braid::gluon::detail {

CachedGraph::CachedGraph(Symbol symbol, std::vector<std::string> input_names, const ParameterDict& params,
                         bool static_alloc)
    : op_(std::move(symbol), static_alloc) {
  auto find_param = [&](const std::string& name) {
    BRAID_CHECK(params.contains(name), "the graph reads '", name,
                "', which is neither one of its inputs nor a Parameter of the block");
    return params[name];
  };
  for (const auto& name : op_.symbol().list_arguments()) {
    auto it = std::find(input_names.begin(), input_names.end(), name);
    arg_input_.push_back(it == input_names.end() ? -1 : static_cast<int>(it - input_names.begin()));
    arg_params_.push_back(it == input_names.end() ? find_param(name) : nullptr);
  }
  for (const auto& name : op_.symbol().list_auxiliary_states()) aux_params_.push_back(find_param(name));
}

std::vector<NDArray> CachedGraph::operator()(const std::vector<NDArray>& inputs) {
  BRAID_CHECK(!inputs.empty() && !inputs[0].is_none(), "a hybridized graph needs its input arrays");
  const Context ctx = inputs[0].ctx();
  std::vector<NDArray> args, aux;
  for (size_t i = 0; i < arg_input_.size(); ++i) {
    int k = arg_input_[i];
    BRAID_CHECK(k < 0 || static_cast<size_t>(k) < inputs.size(), "the graph takes more inputs than the ", inputs.size(),
                " given");
    args.push_back(k >= 0 ? inputs[static_cast<size_t>(k)] : arg_params_[i]->data(ctx));
  }
  for (const auto& p : aux_params_) aux.push_back(p->data(ctx));
  return op_(args, aux);
}

}  // namespace braid::gluon::detail
