#include "braid/symbol/cached_op.h"

#include <algorithm>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "exec_plan.h"
#include "imperative/recorder.h"
#include "op_by_op.h"
#include "run_state.h"

namespace braid::symbol {

struct CachedOp::Compiled {
  std::shared_ptr<const detail::Plan> plan;
  std::shared_ptr<detail::RunState> state;  // static_alloc only
};

CachedOp::CachedOp(Symbol symbol, bool static_alloc, ExecutorOptions options)
    : symbol_(std::move(symbol)),
      arg_names_(symbol_.list_arguments()),
      num_aux_(symbol_.list_auxiliary_states().size()),
      static_alloc_(static_alloc),
      op_by_op_(detail::has_value_dependent_shapes(symbol_.outputs())),
      options_(options) {}

CachedOp::~CachedOp() = default;

void CachedOp::set_monitor_callback(MonitorCallback callback, bool monitor_all) {
  // Monitoring sees the nodes as the graph has them: plans made anew, unfused, not bulk.
  options_.fuse = !callback;
  options_.bulk = !callback && ExecutorOptions::default_bulk();
  options_.channels_last = !callback && ExecutorOptions::default_channels_last();
  monitor_ = std::move(callback);
  monitor_all_ = monitor_all;
  compiled_.clear();
}

std::vector<NDArray> CachedOp::operator()(const std::vector<NDArray>& args, const std::vector<NDArray>& aux) {
  BRAID_CHECK(args.size() == arg_names_.size() && aux.size() == num_aux_, "the cached graph takes ", arg_names_.size(),
              " arguments and ", num_aux_, " auxiliary states but got ", args.size(), " and ", aux.size());
  BRAID_CHECK(!args.empty() && !args[0].is_none(), "a cached graph needs its input arrays");
  for (size_t i = 0; i < args.size(); ++i)
    BRAID_CHECK(!args[i].is_none(), "the cached graph's argument ", arg_names_[i], " is None");
  if (std::any_of(args.begin(), args.end(), [](const NDArray& a) { return a.is_sparse(); }))
    return (*this)(sparse::densify(args), aux);  // graphs compute on dense arrays
  if (op_by_op_) return detail::run_op_by_op(symbol_.outputs(), args, aux);

  imperative::Recorder* recorder = imperative::recorder();
  detail::BindInfo info;
  info.ctx = args[0].ctx();
  info.options = options_;
  std::string key = info.ctx.str();
  for (const auto& a : args) {
    info.arg_shapes.push_back(a.shape());
    info.arg_types.push_back(a.dtype());
    info.arg_ctx.push_back(a.ctx());
    bool wanted = recorder && imperative::needs_grad(a);
    info.grad_req.push_back(wanted ? GradReq::Write : GradReq::Null);
    key += cat(a.shape().str(), static_cast<int>(a.dtype()), wanted ? "g" : "", ";");
  }
  for (const auto& a : aux) {
    info.aux_shapes.push_back(a.shape());
    info.aux_types.push_back(a.dtype());
    info.aux_ctx.push_back(a.ctx());
  }
  std::unique_ptr<Compiled>& c = compiled_[key];
  if (!c) {
    c = std::make_unique<Compiled>();
    c->plan = std::make_shared<const detail::Plan>(detail::make_plan(symbol_.outputs(), info));
  }
  std::shared_ptr<detail::RunState> state;
  std::vector<NDArray> no_grads(args.size());
  if (static_alloc_) {
    if (!c->state) {
      c->state = detail::make_state(*c->plan, args, aux, no_grads);
      if (detail::graphs_allowed(*c->plan) && !monitor_) {
        c->state->forward_graph = std::make_unique<detail::GraphReplay>();
        c->state->backward_graph = std::make_unique<detail::GraphReplay>();
      }
    }
    detail::bind_arrays(*c->plan, *c->state, args, aux, no_grads);
    state = c->state;
  } else {
    state = detail::make_state(*c->plan, args, aux, no_grads);
  }
  state->monitor = monitor_;
  state->monitor_all = monitor_all_;
  detail::run_forward(*c->plan, *state, imperative::is_training());
  // Handles of their own: autograd state lives in the handle, and static buffers are reused.
  std::vector<NDArray> outputs;
  for (const auto& o : state->outputs) outputs.push_back(o.detach());
  if (recorder && c->plan->has_backward) {
    auto backward = [plan = c->plan, state, args, aux](const std::vector<NDArray>& out_grads,
                                                       const std::vector<bool>& wanted,
                                                       const std::vector<NDArray>& into) {
      std::vector<NDArray> grads(args.size());
      for (size_t i = 0; i < args.size(); ++i) {
        if (!wanted[i]) continue;
        const NDArray& a = args[i];
        const bool direct = plan->arg_grad_written[i] && i < into.size() && !into[i].is_none() &&
                            into[i].shape() == a.shape() && into[i].dtype() == a.dtype() && into[i].ctx() == a.ctx();
        grads[i] = direct                      ? into[i]  // a parameter's grad(): no copy afterwards
                   : plan->arg_grad_written[i] ? NDArray(a.shape(), a.ctx(), a.dtype())
                                               : nd::zeros(a.shape(), a.ctx(), a.dtype());
      }
      detail::bind_arrays(*plan, *state, args, aux, grads);
      detail::run_backward(*plan, *state, out_grads);
      return grads;
    };
    recorder->record_function(args, outputs, backward);
  }
  return outputs;
}

}  // namespace braid::symbol
