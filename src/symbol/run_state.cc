#include "run_state.h"

#include <algorithm>
#include <utility>

#include "braid/base/error.h"
#include "braid/engine/engine.h"
#include "imperative/push_op.h"
#include "monitor.h"

namespace braid::symbol::detail {
namespace {

// Elements per block of a fused chain: its intermediates stay in the L1/L2 cache.
constexpr int64_t kFusedBlock = 4096;

op::TBlob block(const op::TBlob& b, int64_t begin, int64_t n) {
  return op::TBlob{static_cast<char*>(b.dptr) + begin * static_cast<int64_t>(dtype_size(b.dtype)), Shape{n}, b.dtype};
}

/// Runs the chain on one block: acts[0] is the input, acts[k + 1] the output of op k.
void chain_forward(const std::vector<FusedOp>& chain, const op::OpContext& oc, std::vector<op::TBlob>& acts) {
  for (size_t k = 0; k < chain.size(); ++k) {
    op::ForwardArgs fa{{acts[k]}, {acts[k + 1]}, {op::OpReq::Write}, {}};
    chain[k].def->kernels(oc.ctx).forward(oc, chain[k].param, fa);
  }
}

/// Per block: the chain's activations, the last one into `y` (forward) or into scratch memory
/// (backward, which then runs the ops' gradients back to front on that block).
imperative::Kernel fused_kernel(const Step& s, const RunState& st, bool backward) {
  const NDArray x = st.values[s.inputs[0]];
  const NDArray y = st.values[s.outputs[0]];
  NDArray g, dx;
  op::OpReq req = op::OpReq::Write;
  imperative::Kernel k;
  k.ctx = s.ctx;
  k.name = backward ? "fused backward" : "fused";
  k.reads = {x.var()};
  if (backward) {
    g = st.values[s.out_grads[0]];
    dx = st.values[s.in_grads[0]];
    req = s.in_grad_req[0];
    k.reads.push_back(g.var());
    k.writes.push_back(dx.var());
  } else {
    k.writes.push_back(y.var());
  }
  bool training = st.training;
  // Everything the kernel touches is its own: the plan and `st` may be gone when it runs.
  k.fn = [chain = s.chain, x, y, g, dx, req, backward, training] {
    const op::TBlob xb = x.blob();
    const DType t = xb.dtype;
    const size_t n = chain->size();
    const int64_t total = xb.size();
    // Scratch: the n - 1 intermediate activations (all n in backward) and one gradient.
    std::vector<std::vector<char>> scratch(n + 1, std::vector<char>(static_cast<size_t>(kFusedBlock) * dtype_size(t)));
    op::OpContext oc{training, x.ctx(), nullptr};
    for (int64_t begin = 0; begin < total; begin += kFusedBlock) {
      const int64_t len = std::min(kFusedBlock, total - begin);
      std::vector<op::TBlob> acts(n + 1);
      acts[0] = block(xb, begin, len);
      for (size_t k = 1; k <= n; ++k) acts[k] = op::TBlob{scratch[k - 1].data(), Shape{len}, t};
      if (!backward) acts[n] = block(y.blob(), begin, len);
      chain_forward(*chain, oc, acts);
      if (!backward) continue;
      op::TBlob grad = op::TBlob{scratch[n].data(), Shape{len}, t};
      std::copy_n(static_cast<const char*>(g.blob().dptr) + begin * static_cast<int64_t>(dtype_size(t)),
                  len * static_cast<int64_t>(dtype_size(t)), static_cast<char*>(grad.dptr));
      for (size_t k = n; k-- > 0;) {
        // Element-wise gradients may write over the output gradient they read.
        op::TBlob target = k == 0 ? block(dx.blob(), begin, len) : grad;
        op::BackwardArgs ba{{grad}, {acts[k]}, {acts[k + 1]}, {}, {target}, {k == 0 ? req : op::OpReq::Write}};
        (*chain)[k].def->kernels(oc.ctx).backward(oc, (*chain)[k].param, ba);
      }
    }
  };
  return k;
}

/// Pushes the kernels, as one engine operation when `bulk` (no scheduling between them).
// The kernels as one engine operation, run one after the other.
imperative::Kernel merge(std::vector<imperative::Kernel> kernels, const char* name) {
  imperative::Kernel all;
  all.ctx = kernels[0].ctx;
  all.name = name;
  all.profiled = false;  // each part is timed on its own
  std::vector<std::function<void()>> fns;
  for (auto& k : kernels) {
    all.reads.insert(all.reads.end(), k.reads.begin(), k.reads.end());
    all.writes.insert(all.writes.end(), k.writes.begin(), k.writes.end());
    k.source = profiler::Source::Symbolic;
    fns.push_back(imperative::profiled_fn(k));
  }
  all.fn = [fns = std::move(fns)] {
    for (const auto& f : fns) f();
  };
  return all;
}

void push_all(std::vector<imperative::Kernel> kernels, bool bulk, const char* name) {
  if (!bulk || kernels.size() < 2) {
    for (auto& k : kernels) {
      k.source = profiler::Source::Symbolic;
      imperative::push(std::move(k));
    }
    return;
  }
  imperative::push(merge(std::move(kernels), name));
}

// Binds the arrays from outside the plan that a graphed run reads or writes (arguments and aux
// states, and in backward the arguments' gradients) to what `graph` gives in their place.
std::vector<bool> bind_for_graph(const Plan& plan, RunState& st, GraphReplay& graph, bool backward) {
  std::vector<NDArray> outside = st.args;
  outside.insert(outside.end(), st.aux.begin(), st.aux.end());
  if (backward) outside.insert(outside.end(), st.arg_grads.begin(), st.arg_grads.end());
  std::vector<bool> written(outside.size(), false);
  // Forward may update aux states (BatchNorm in training); backward writes the gradients.
  for (size_t i = st.args.size(); i < outside.size(); ++i)
    written[i] = backward ? i >= st.args.size() + st.aux.size() : true;
  std::vector<bool> fresh(outside.size(), false);  // the gradients: new arrays at each call
  for (size_t i = st.args.size() + st.aux.size(); i < outside.size(); ++i) fresh[i] = true;
  std::vector<NDArray> bound = graph.bind(outside, st.training, fresh);
  const auto at = [&bound](size_t from, size_t n) {
    return std::vector<NDArray>(bound.begin() + static_cast<long>(from), bound.begin() + static_cast<long>(from + n));
  };
  const size_t na = st.args.size(), nx = st.aux.size();
  bind_arrays(plan, st, at(0, na), at(na, nx), backward ? at(na + nx, st.arg_grads.size()) : st.arg_grads);
  return written;
}

// The run's kernels: as one operation replayed as a CUDA graph where the state has one.
void push_run(std::vector<imperative::Kernel> kernels, const Plan& plan, GraphReplay* graph,
              const std::vector<bool>& written, const char* name) {
  if (graph && !kernels.empty())
    imperative::push(graph->wrap(merge(std::move(kernels), name), written));
  else
    push_all(std::move(kernels), plan.bulk, name);
}

std::vector<NDArray> arrays(const RunState& st, const std::vector<uint32_t>& ids) {
  std::vector<NDArray> out;
  for (uint32_t v : ids) out.push_back(v == kNoValue ? NDArray() : st.values[v]);
  return out;
}

}  // namespace

std::shared_ptr<RunState> make_state(const Plan& plan, std::vector<NDArray> args, std::vector<NDArray> aux,
                                     std::vector<NDArray> arg_grads, const std::vector<NDArray>& shared_slots) {
  auto st = std::make_shared<RunState>();
  std::vector<bool> taken(shared_slots.size(), false);
  for (const Slot& s : plan.slots) {
    size_t best = shared_slots.size();  // the smallest shared slot that fits
    for (size_t j = 0; j < shared_slots.size(); ++j) {
      const NDArray& m = shared_slots[j];
      if (taken[j] || m.ctx() != s.ctx || m.dtype() != s.dtype || m.size() < s.elements) continue;
      if (best == shared_slots.size() || m.size() < shared_slots[best].size()) best = j;
    }
    if (best == shared_slots.size()) {
      st->slots.emplace_back(Shape{s.elements}, s.ctx, s.dtype);
    } else {
      taken[best] = true;
      st->slots.push_back(shared_slots[best].slice(0, s.elements));
    }
  }
  st->values.resize(plan.values.size());
  for (size_t i = 0; i < plan.values.size(); ++i) {
    const Value& v = plan.values[i];
    if (v.kind != Value::Kind::Planned || v.index < 0) continue;
    if (v.shape.size() == 0) {  // empty (NumPy shapes): a reshape would read its 0s as "copy this dimension"
      st->values[i] = NDArray(v.shape, v.ctx, v.dtype);
      continue;
    }
    st->values[i] = st->slots[static_cast<size_t>(v.index)]
                        .slice(0, v.shape.size())
                        .reshape(std::vector<int64_t>(v.shape.dims().begin(), v.shape.dims().end()));
  }
  bind_arrays(plan, *st, std::move(args), std::move(aux), std::move(arg_grads));
  return st;
}

void bind_arrays(const Plan& plan, RunState& st, std::vector<NDArray> args, std::vector<NDArray> aux,
                 std::vector<NDArray> arg_grads) {
  st.args = std::move(args);
  st.aux = std::move(aux);
  st.arg_grads = std::move(arg_grads);
  for (size_t i = 0; i < plan.values.size(); ++i) {
    const Value& v = plan.values[i];
    auto idx = static_cast<size_t>(v.index);
    if (v.kind == Value::Kind::Arg) st.values[i] = st.args[idx];
    if (v.kind == Value::Kind::Aux) st.values[i] = st.aux[idx];
    if (v.kind == Value::Kind::ArgGrad) st.values[i] = st.arg_grads[idx];
  }
  st.outputs = arrays(st, plan.outputs);
}

namespace {

bool on_host(const Step& s) { return s.def && s.def->runs_on_host(); }

// One step on its own (the steps of a monitored run; host steps, which push their own work).
void push_step_forward(const Step& s, const RunState& st) {
  if (on_host(s))
    return imperative::push_forward(*s.def, s.param, st.training, s.ctx, arrays(st, s.inputs), s.num_args,
                                    arrays(st, s.outputs));
  push_all({imperative::forward_kernel(*s.def, s.param, st.training, s.ctx, arrays(st, s.inputs), s.num_args,
                                       arrays(st, s.outputs))},
           false, "forward");
}

void push_step_backward(const Step& s, const RunState& st) {
  if (on_host(s))
    return imperative::push_backward(*s.def, s.param, st.training, arrays(st, s.out_grads), arrays(st, s.inputs),
                                     arrays(st, s.outputs), arrays(st, s.in_grads), s.in_grad_req);
  push_all({imperative::backward_kernel(*s.def, s.param, st.training, arrays(st, s.out_grads), arrays(st, s.inputs),
                                        arrays(st, s.outputs), arrays(st, s.in_grads), s.in_grad_req)},
           false, "backward");
}

}  // namespace

// A monitored run: each step pushed on its own, the monitor told of its arrays around the push.
void run_forward_monitored(const Plan& plan, RunState& st) {
  for (const Step& s : plan.steps) {
    monitor_inputs(plan, s, st);
    push_step_forward(s, st);
    monitor_outputs(s, st);
  }
}

void run_backward_monitored(const Plan& plan, RunState& st) {
  for (size_t i = plan.steps.size(); i-- > 0;) {
    const Step& s = plan.steps[i];
    if (!s.backward) continue;
    push_step_backward(s, st);
    monitor_backward(s, st);
  }
}

void run_forward(const Plan& plan, RunState& st, bool is_train) {
  st.training = is_train;
  if (st.monitor) return run_forward_monitored(plan, st);
  std::vector<bool> written;
  if (st.forward_graph) written = bind_for_graph(plan, st, *st.forward_graph, false);
  std::vector<imperative::Kernel> kernels;
  for (const Step& s : plan.steps) {
    if (on_host(s)) {  // after what comes before it is pushed (such plans have no CUDA graph)
      push_all(std::exchange(kernels, {}), plan.bulk, "forward (bulk)");
      push_step_forward(s, st);
      continue;
    }
    kernels.push_back(s.def ? imperative::forward_kernel(*s.def, s.param, is_train, s.ctx, arrays(st, s.inputs),
                                                         s.num_args, arrays(st, s.outputs))
                            : fused_kernel(s, st, false));
  }
  push_run(std::move(kernels), plan, st.forward_graph.get(), written, "forward (bulk)");
}

void run_backward(const Plan& plan, RunState& st, const std::vector<NDArray>& head_grads) {
  BRAID_CHECK(plan.has_backward,
              "backward: no argument of this executor wants a gradient; bind with "
              "grad_req write or add for the arguments to differentiate");
  // Gradients beyond the outputs' count are ignored, as MXNet.
  for (uint32_t v : plan.zero_grads) st.values[v].fill(0);
  for (size_t i = 0; i < plan.head_grads.size(); ++i) {
    if (plan.head_grads[i] == kNoValue) continue;
    NDArray& g = st.values[plan.head_grads[i]];
    if (!plan.head_grad_read[i]) continue;
    if (i < head_grads.size() && !head_grads[i].is_none()) {
      BRAID_CHECK(head_grads[i].shape() == g.shape(), "backward: the gradient of output ", i, " has shape ",
                  head_grads[i].shape(), " but the output has ", g.shape());
      head_grads[i].copyto(g);
    } else {
      g.fill(1);
    }
  }
  if (st.monitor) return run_backward_monitored(plan, st);
  std::vector<bool> written;
  if (st.backward_graph) written = bind_for_graph(plan, st, *st.backward_graph, true);
  std::vector<imperative::Kernel> kernels;
  for (size_t i = plan.steps.size(); i-- > 0;) {
    const Step& s = plan.steps[i];
    if (!s.backward) continue;
    if (on_host(s)) {
      push_all(std::exchange(kernels, {}), plan.bulk, "backward (bulk)");
      push_step_backward(s, st);
      continue;
    }
    // A fused chain whose input wants no gradient (zero-gradient ops such as a comparison
    // after a reduction that nothing differentiates) has nothing to compute.
    if (!s.def && s.in_grads[0] == kNoValue) continue;
    kernels.push_back(s.def ? imperative::backward_kernel(*s.def, s.param, st.training, arrays(st, s.out_grads),
                                                          arrays(st, s.inputs), arrays(st, s.outputs),
                                                          arrays(st, s.in_grads), s.in_grad_req)
                            : fused_kernel(s, st, true));
  }
  push_run(std::move(kernels), plan, st.backward_graph.get(), written, "backward (bulk)");
}

}  // namespace braid::symbol::detail
