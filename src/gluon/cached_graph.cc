#include "cached_graph.h"

#include <algorithm>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "../autograd/node.h"
#include "../symbol/exec_plan.h"
#include "../symbol/run_state.h"

namespace braid::gluon::detail {

using symbol::detail::Plan;
using symbol::detail::RunState;

CachedGraph::CachedGraph(Symbol symbol, std::vector<std::string> input_names, const ParameterDict& params,
                         bool static_alloc)
    : symbol_(std::move(symbol)), static_alloc_(static_alloc) {
  options_.bulk = ExecutorOptions::default_bulk();
  auto find_param = [&](const std::string& name) {
    BRAID_CHECK(params.contains(name), "the graph reads '", name,
                "', which is neither one of its inputs nor a Parameter of the block");
    return params[name];
  };
  for (const auto& name : symbol_.list_arguments()) {
    auto it = std::find(input_names.begin(), input_names.end(), name);
    arg_input_.push_back(it == input_names.end() ? -1 : static_cast<int>(it - input_names.begin()));
    arg_params_.push_back(it == input_names.end() ? find_param(name) : nullptr);
  }
  for (const auto& name : symbol_.list_auxiliary_states()) aux_params_.push_back(find_param(name));
  num_args_ = arg_input_.size();
}

std::vector<NDArray> CachedGraph::operator()(const std::vector<NDArray>& inputs) {
  BRAID_CHECK(!inputs.empty() && !inputs[0].is_none(), "a hybridized graph needs its input arrays");
  const Context ctx = inputs[0].ctx();
  std::vector<NDArray> args, aux;
  for (size_t i = 0; i < num_args_; ++i) {
    int k = arg_input_[i];
    BRAID_CHECK(k < 0 || static_cast<size_t>(k) < inputs.size(), "the graph takes more inputs than the ",
                inputs.size(), " given");
    args.push_back(k >= 0 ? inputs[static_cast<size_t>(k)] : arg_params_[i]->data(ctx));
  }
  for (const auto& p : aux_params_) aux.push_back(p->data(ctx));

  symbol::detail::BindInfo info;
  info.ctx = ctx;
  info.options = options_;
  const bool recording = autograd::is_recording();
  std::string key = ctx.str();
  for (const auto& a : args) {
    info.arg_shapes.push_back(a.shape());
    info.arg_types.push_back(a.dtype());
    info.arg_ctx.push_back(a.ctx());
    bool wanted = recording && autograd::detail::needs_grad(a);
    info.grad_req.push_back(wanted ? GradReq::Write : GradReq::Null);
    key += cat(a.shape().str(), static_cast<int>(a.dtype()), wanted ? "g" : "", ";");
  }
  for (const auto& a : aux) {
    info.aux_shapes.push_back(a.shape());
    info.aux_types.push_back(a.dtype());
    info.aux_ctx.push_back(a.ctx());
  }
  Compiled& c = compiled_[key];
  if (!c.plan) c.plan = std::make_shared<const Plan>(symbol::detail::make_plan(symbol_.outputs(), info));
  std::shared_ptr<RunState> state;
  std::vector<NDArray> no_grads(args.size());
  if (static_alloc_) {
    if (!c.state) c.state = symbol::detail::make_state(*c.plan, args, aux, no_grads);
    symbol::detail::bind_arrays(*c.plan, *c.state, args, aux, no_grads);
    state = c.state;
  } else {
    state = symbol::detail::make_state(*c.plan, args, aux, no_grads);
  }
  symbol::detail::run_forward(*c.plan, *state, autograd::is_training());
  // Handles of their own: autograd state lives in the handle, and static buffers are reused.
  std::vector<NDArray> outputs;
  for (const auto& o : state->outputs) outputs.push_back(o.detach());
  if (c.plan->has_backward) {
    auto plan = c.plan;
    auto backward = [plan, state, args, aux](const std::vector<NDArray>& out_grads, const std::vector<bool>& wanted) {
      std::vector<NDArray> grads(args.size());
      for (size_t i = 0; i < args.size(); ++i)
        if (wanted[i])
          grads[i] = plan->arg_grad_written[i] ? NDArray(args[i].shape(), args[i].ctx(), args[i].dtype())
                                               : nd::zeros(args[i].shape(), args[i].ctx(), args[i].dtype());
      symbol::detail::bind_arrays(*plan, *state, args, aux, grads);
      symbol::detail::run_backward(*plan, *state, out_grads);
      return grads;
    };
    autograd::detail::record_function(args, outputs, backward);
  }
  return outputs;
}

}  // namespace braid::gluon::detail
