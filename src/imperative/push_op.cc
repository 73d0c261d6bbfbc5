#include "imperative/push_op.h"

#include "braid/base/error.h"
#include "imperative/kernel_threads.h"
#include "imperative/random_state.h"
#include "imperative/recorder.h"
#include "imperative/tracer.h"

namespace braid::imperative {
namespace {
thread_local int t_priority = 0;

/// While an op's host functions run: what they push is neither recorded nor traced (the op
/// itself is), in the mode of the call.
class HostCallScope {
 public:
  explicit HostCallScope(bool training) : recorder_(set_recorder(nullptr)), training_(set_training(training)) {}
  ~HostCallScope() {
    set_recorder(recorder_);
    set_training(training_);
  }
  HostCallScope(const HostCallScope&) = delete;
  HostCallScope& operator=(const HostCallScope&) = delete;

 private:
  Recorder* recorder_;
  bool training_;
  TracerPause no_trace_;
};

/// `arrays` (padded to the size of `like`) with each None replaced by zeros shaped as its
/// counterpart in `like`: host code (Python) reads every output gradient and may write every
/// input gradient, as MXNet hands it arrays for all.
std::vector<NDArray> filled(const std::vector<NDArray>& arrays, const std::vector<NDArray>& like) {
  std::vector<NDArray> out = arrays;
  out.resize(like.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].is_none()) {
      out[i] = NDArray(like[i].shape(), like[i].ctx(), like[i].dtype());
      out[i].fill(0);
    }
  return out;
}
}  // namespace

int priority() { return t_priority; }

int set_priority(int priority) {
  int prev = t_priority;
  t_priority = priority;
  return prev;
}

Kernel forward_kernel(const op::OpDef& def, const std::any& param, bool training, Context ctx,
                      const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs) {
  const op::ForwardKernel& run = def.kernels(ctx).forward;  // throws when def cannot run on ctx
  Kernel k;
  k.ctx = ctx;
  k.name = def.name.c_str();
  std::vector<bool> written(inputs.size(), false);
  for (size_t i = nargs; i < inputs.size(); ++i) written[i] = def.mutates_aux && training;
  for (int i : def.mutate_inputs(param)) written[static_cast<size_t>(i)] = true;
  for (size_t i = 0; i < inputs.size(); ++i) (written[i] ? k.writes : k.reads).push_back(inputs[i].var());
  for (const auto& o : outputs) k.writes.push_back(o.var());
  std::mt19937_64* rng = nullptr;
  if (def.needs_rng) {
    RandomState& rs = random_state(ctx);
    k.writes.push_back(rs.var);
    rng = &rs.generator;
  }
  k.fn = [&run, param, args = std::vector<NDArray>(inputs.begin(), inputs.begin() + static_cast<long>(nargs)),
          aux = std::vector<NDArray>(inputs.begin() + static_cast<long>(nargs), inputs.end()), outputs, ctx, training,
          rng] {
    op::ForwardArgs fa;
    for (const auto& a : args) fa.inputs.push_back(a.blob());
    for (const auto& a : aux) fa.aux.push_back(a.blob());
    for (const auto& o : outputs) fa.outputs.push_back(o.blob());
    fa.req.assign(outputs.size(), op::OpReq::Write);
    op::OpContext oc{training, ctx, rng};
    run(oc, param, fa);
  };
  return k;
}

Kernel backward_kernel(const op::OpDef& def, const std::any& param, bool training,
                       const std::vector<NDArray>& out_grads, const std::vector<NDArray>& inputs,
                       const std::vector<NDArray>& outputs, const std::vector<NDArray>& in_grads,
                       const std::vector<op::OpReq>& req) {
  BRAID_CHECK(def.has_gradient(), "operator ", def.name, " has no gradient");
  size_t nargs = def.list_arguments(param).size();
  size_t nout = static_cast<size_t>(def.num_outputs(param));
  BRAID_CHECK(inputs.size() == nargs + def.list_aux(param).size() && in_grads.size() == nargs && req.size() == nargs &&
                  outputs.size() == nout && out_grads.size() <= nout,
              "backward of ", def.name, ": expected ", nargs, " inputs and gradients, ", nout, " outputs; got ",
              inputs.size(), ", ", in_grads.size(), ", ", outputs.size());
  for (size_t i = 0; i < nargs; ++i)
    BRAID_CHECK(in_grads[i].is_none() || in_grads[i].shape() == inputs[i].shape(), "backward of ", def.name,
                ": gradient ", i, " has shape ", in_grads[i].shape(), " but the input has ", inputs[i].shape());
  Kernel k;
  k.name = def.name.c_str();
  k.backward = true;
  for (const auto* list : {&out_grads, &inputs, &outputs})
    for (const auto& a : *list) {
      const bool aux = list == &inputs && static_cast<size_t>(&a - inputs.data()) >= nargs;
      if (!a.is_none()) (aux && def.backward_mutates_aux ? k.writes : k.reads).push_back(a.var());
    }
  for (size_t i = 0; i < nargs; ++i)
    if (!in_grads[i].is_none() && req[i] != op::OpReq::Null) k.writes.push_back(in_grads[i].var());
  Context ctx = inputs.empty() ? cpu() : inputs[0].ctx();
  const op::BackwardKernel& run = def.kernels(ctx).backward;
  BRAID_CHECK(run, "operator ", def.name, " has no gradient kernel for ", ctx, " yet; compute it on cpu()");
  k.ctx = ctx;
  k.fn = [&run, param, out_grads, inputs, outputs, in_grads, req, nargs, ctx, training] {
    auto blob_or_null = [](const NDArray& a) { return a.is_none() ? op::TBlob{} : a.blob(); };
    op::BackwardArgs ba;
    for (const auto& g : out_grads) ba.out_grads.push_back(blob_or_null(g));
    for (size_t i = 0; i < inputs.size(); ++i) (i < nargs ? ba.inputs : ba.aux).push_back(inputs[i].blob());
    for (const auto& o : outputs) ba.outputs.push_back(o.blob());
    for (size_t i = 0; i < nargs; ++i) {
      bool wanted = !in_grads[i].is_none() && req[i] != op::OpReq::Null;
      ba.in_grads.push_back(wanted ? in_grads[i].blob() : op::TBlob{});
      ba.req.push_back(wanted ? req[i] : op::OpReq::Null);
    }
    op::OpContext oc{training, ctx, nullptr};
    run(oc, param, ba);
  };
  return k;
}

std::function<void()> profiled_fn(Kernel& kernel) {
  std::string scope = profiler::running() ? profiler::scope() : std::string();  // the pusher's
  return [fn = std::move(kernel.fn), name = kernel.name, backward = kernel.backward, source = kernel.source,
          ctx = kernel.ctx, scope = std::move(scope)] {
    if (!profiler::running()) return fn();
    const int64_t start = profiler::now_us();
    fn();
    profiler::record_operator(backward ? cat("_backward_", name).c_str() : name, source, ctx, start, profiler::now_us(),
                              scope);
  };
}

void push(Kernel kernel) {
  note_context(kernel.ctx);
  auto fn = [fn = kernel.profiled ? profiled_fn(kernel) : std::move(kernel.fn), ctx = kernel.ctx] {
    use_kernel_threads(ctx);
    fn();
  };
  engine::Engine::get().push(std::move(fn), kernel.ctx, kernel.reads, kernel.writes, priority(), kernel.name);
}

void push_forward(const op::OpDef& def, const std::any& param, bool training, Context ctx,
                  const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs) {
  if (def.runs_on_host()) {
    HostCallScope scope(training);
    const auto split = inputs.begin() + static_cast<long>(nargs);
    def.host.forward(param, training, std::vector<NDArray>(inputs.begin(), split), outputs,
                     std::vector<NDArray>(split, inputs.end()));
    return;
  }
  push(forward_kernel(def, param, training, ctx, inputs, nargs, outputs));
}

void push_backward(const op::OpDef& def, const std::any& param, bool training, const std::vector<NDArray>& out_grads,
                   const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                   const std::vector<NDArray>& in_grads, const std::vector<op::OpReq>& req) {
  if (def.runs_on_host()) {
    BRAID_CHECK(def.host.backward, "operator ", def.name, " has no gradient");
    HostCallScope scope(training);
    const std::vector<NDArray> args(inputs.begin(), inputs.begin() + static_cast<long>(in_grads.size()));
    def.host.backward(param, training, req, filled(out_grads, outputs), args, outputs, filled(in_grads, args),
                      std::vector<NDArray>(inputs.begin() + static_cast<long>(args.size()), inputs.end()));
    return;
  }
  push(backward_kernel(def, param, training, out_grads, inputs, outputs, in_grads, req));
}

}  // namespace braid::imperative
