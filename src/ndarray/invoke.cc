#include "braid/ndarray/invoke.h"

#include <mutex>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/base/gpu.h"
#include "braid/op/input_slots.h"
#include "braid/op/registry.h"
#include "../autograd/node.h"
#include "push_op.h"
#include "kernel_threads.h"
#include "tracer.h"
#include "random_state.h"

namespace braid::nd {
namespace {

std::string arg_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += cat(s.empty() ? "" : ", ", n);
  return s;
}

}  // namespace

void waitall() { engine::Engine::get().wait_for_all(); }

namespace {
thread_local int t_priority = 0;  // the innermost PriorityScope's
}  // namespace

PriorityScope::PriorityScope(int priority) : saved_(t_priority) { t_priority = priority; }
PriorityScope::~PriorityScope() { t_priority = saved_; }

namespace {

std::vector<NDArray> run(const std::string& op_name, const std::vector<NDArray>& inputs,
                         const op::AttrMap& attrs, const std::vector<NDArray>& out, bool all_outputs) {
  const op::OpDef& def = op::Registry::get().find(op_name);
  std::any param = def.parse(attrs);
  std::vector<std::string> arg_names = def.list_arguments(param);
  std::vector<std::string> aux_names = def.list_aux(param);
  size_t nargs = arg_names.size(), naux = aux_names.size();
  BRAID_CHECK(inputs.size() == nargs + naux, "operator ", def.name, " takes ", nargs + naux,
              " inputs (", arg_list(arg_names), naux ? ", " : "", arg_list(aux_names), ") but got ",
              inputs.size());

  Context ctx = cpu();
  if (!inputs.empty()) {
    ctx = inputs[0].ctx();
  } else if (auto it = attrs.find("ctx"); it != attrs.end()) {
    ctx = Context::parse(it->second);
  }
  // The GPU backend has the runtime (memory, copies) but no operator kernels yet (docs/gpu.md).
  if (!ctx.is_cpu_family()) {
    const std::string no_gpu = gpu_runtime::unavailable_reason();
    throw Error(no_gpu.empty() ? cat("operator ", def.name, " has no GPU kernel yet, so it cannot run on ", ctx,
                                     "; copy the arrays to cpu() (as_in_context) and run it there")
                               : cat("operator ", def.name, " cannot run on ", ctx, ": ", no_gpu, "; use cpu()"));
  }
  std::vector<Shape> in_shapes(nargs), aux_shapes(naux);
  std::vector<DType> in_types(nargs), aux_types(naux);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NDArray& a = inputs[i];
    BRAID_CHECK(!a.is_none(), "operator ", def.name, ": input ",
                i < nargs ? arg_names[i] : aux_names[i - nargs], " is None");
    BRAID_CHECK(a.ctx() == ctx, "operator ", def.name, ": inputs are on different contexts (", ctx,
                " and ", a.ctx(), "); copy them with as_in_context first");
    (i < nargs ? in_shapes[i] : aux_shapes[i - nargs]) = a.shape();
    (i < nargs ? in_types[i] : aux_types[i - nargs]) = a.dtype();
  }
  int nout = def.num_outputs(param);
  int nvisible = def.num_visible_outputs(param);
  BRAID_CHECK(out.empty() || static_cast<int>(out.size()) == nvisible, "operator ", def.name, " has ",
              nvisible, " outputs but ", out.size(), " out arrays were given");
  std::vector<Shape> out_shapes(static_cast<size_t>(nout));
  std::vector<DType> out_types(static_cast<size_t>(nout), kDTypeUnknown);
  for (size_t i = 0; i < out.size(); ++i) {
    out_shapes[i] = out[i].shape();
    out_types[i] = out[i].dtype();
  }
  bool complete = def.infer_shape(param, in_shapes, out_shapes, aux_shapes);
  for (size_t i = 0; i < nargs; ++i)
    BRAID_CHECK(in_shapes[i] == inputs[i].shape(), "operator ", def.name, ": input ", arg_names[i],
                " has shape ", inputs[i].shape(), " but ", in_shapes[i], " is required");
  BRAID_CHECK(complete, "operator ", def.name, ": cannot infer the output shapes from inputs");
  def.infer_type(param, in_types, out_types, aux_types);
  for (size_t i = 0; i < out.size(); ++i)
    BRAID_CHECK(out_shapes[i] == out[i].shape() && out_types[i] == out[i].dtype(), "operator ",
                def.name, ": out array ", i, " is ", out[i].shape(), " ", dtype_name(out[i].dtype()),
                " but the result is ", out_shapes[i], " ", dtype_name(out_types[i]));

  const bool recording = autograd::is_recording();
  if (recording)
    for (const auto& o : out) autograd::detail::check_writable(o, def.name.c_str());
  std::vector<NDArray> outputs(out.begin(), out.end());
  for (int i = static_cast<int>(out.size()); i < nout; ++i)
    outputs.emplace_back(out_shapes[static_cast<size_t>(i)], ctx, out_types[static_cast<size_t>(i)]);

  bool training = autograd::is_training();
  if (recording) autograd::detail::record_op(def, param, training, inputs, nargs, outputs, nvisible);
  // Into given arrays of another CPU context (a copy between CPU contexts): the kernel runs on
  // theirs, the context that uses the result, instead of queueing behind the source's work.
  const bool into_other_cpu =
      !out.empty() && out[0].ctx() != ctx && ctx.is_cpu_family() && out[0].ctx().is_cpu_family();
  detail::push_forward(def, param, training, into_other_cpu ? out[0].ctx() : ctx, inputs, nargs, outputs);
  if (detail::Tracer* t = detail::tracer()) t->record(def, op_name, attrs, inputs, outputs);
  if (!all_outputs) outputs.resize(static_cast<size_t>(nvisible));
  return outputs;
}

}  // namespace

std::vector<NDArray> invoke(const std::string& op, const std::vector<NDArray>& inputs,
                            const op::AttrMap& attrs, const std::vector<NDArray>& out) {
  return run(op, inputs, attrs, out, false);
}

std::vector<NDArray> invoke_named(const std::string& op, const std::vector<std::pair<std::string, NDArray>>& inputs,
                                  op::AttrMap attrs, const std::vector<NDArray>& out) {
  const op::OpDef& def = op::Registry::get().find(op);
  if (!def.key_var_num_args.empty() && !attrs.count(def.key_var_num_args))
    attrs[def.key_var_num_args] = std::to_string(inputs.size());
  std::any param = def.parse(attrs);
  std::vector<std::string> slots = def.list_arguments(param), aux = def.list_aux(param);
  slots.insert(slots.end(), aux.begin(), aux.end());
  std::vector<std::string> names;
  for (const auto& in : inputs) names.push_back(in.first);
  std::vector<size_t> where = op::input_slots(def.name, slots, names);
  std::vector<NDArray> placed(slots.size());
  for (size_t i = 0; i < inputs.size(); ++i) placed[where[i]] = inputs[i].second;
  for (size_t i = 0; i < slots.size(); ++i)
    BRAID_CHECK(!placed[i].is_none(), "operator ", def.name, ": input '", slots[i], "' is missing; its inputs are: ",
                arg_list(slots));
  return run(op, placed, attrs, out, false);
}

std::vector<NDArray> invoke_all(const std::string& op, const std::vector<NDArray>& inputs,
                                const op::AttrMap& attrs) {
  return run(op, inputs, attrs, {}, true);
}

void invoke_backward(const std::string& op_name, const op::AttrMap& attrs,
                     const std::vector<NDArray>& out_grads, const std::vector<NDArray>& inputs,
                     const std::vector<NDArray>& outputs, const std::vector<NDArray>& in_grads,
                     bool accumulate) {
  const op::OpDef& def = op::Registry::get().find(op_name);
  std::vector<op::OpReq> req;
  for (const auto& g : in_grads)
    req.push_back(g.is_none() ? op::OpReq::Null : accumulate ? op::OpReq::Add : op::OpReq::Write);
  detail::push_backward(def, def.parse(attrs), autograd::is_training(), out_grads, inputs, outputs,
                        in_grads, req);
}

namespace detail {

namespace {
thread_local Tracer* t_tracer = nullptr;
}  // namespace

Tracer* tracer() { return t_tracer; }

Tracer* set_tracer(Tracer* t) {
  Tracer* prev = t_tracer;
  t_tracer = t;
  return prev;
}

Kernel forward_kernel(const op::OpDef& def, const std::any& param, bool training, Context ctx,
                      const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs) {
  Kernel k;
  k.ctx = ctx;
  k.name = def.name.c_str();
  std::vector<bool> written(inputs.size(), false);
  for (size_t i = nargs; i < inputs.size(); ++i) written[i] = def.mutates_aux && training;
  for (int i : def.mutate_inputs) written[static_cast<size_t>(i)] = true;
  for (size_t i = 0; i < inputs.size(); ++i) (written[i] ? k.writes : k.reads).push_back(inputs[i].var());
  for (const auto& o : outputs) k.writes.push_back(o.var());
  std::mt19937_64* rng = nullptr;
  if (def.needs_rng) {
    RandomState& rs = random_state(ctx);
    k.writes.push_back(rs.var);
    rng = &rs.generator;
  }
  k.fn = [&def, param, args = std::vector<NDArray>(inputs.begin(), inputs.begin() + static_cast<long>(nargs)),
          aux = std::vector<NDArray>(inputs.begin() + static_cast<long>(nargs), inputs.end()), outputs, ctx,
          training, rng] {
    op::ForwardArgs fa;
    for (const auto& a : args) fa.inputs.push_back(a.blob());
    for (const auto& a : aux) fa.aux.push_back(a.blob());
    for (const auto& o : outputs) fa.outputs.push_back(o.blob());
    fa.req.assign(outputs.size(), op::OpReq::Write);
    op::OpContext oc{training, ctx, rng};
    def.forward(oc, param, fa);
  };
  return k;
}

Kernel backward_kernel(const op::OpDef& def, const std::any& param, bool training,
                       const std::vector<NDArray>& out_grads, const std::vector<NDArray>& inputs,
                       const std::vector<NDArray>& outputs, const std::vector<NDArray>& in_grads,
                       const std::vector<op::OpReq>& req) {
  BRAID_CHECK(def.backward, "operator ", def.name, " has no gradient");
  size_t nargs = def.list_arguments(param).size();
  size_t nout = static_cast<size_t>(def.num_outputs(param));
  BRAID_CHECK(inputs.size() == nargs + def.list_aux(param).size() && in_grads.size() == nargs &&
                  req.size() == nargs && outputs.size() == nout && out_grads.size() <= nout,
              "backward of ", def.name, ": expected ", nargs, " inputs and gradients, ", nout,
              " outputs; got ", inputs.size(), ", ", in_grads.size(), ", ", outputs.size());
  for (size_t i = 0; i < nargs; ++i)
    BRAID_CHECK(in_grads[i].is_none() || in_grads[i].shape() == inputs[i].shape(), "backward of ",
                def.name, ": gradient ", i, " has shape ", in_grads[i].shape(), " but the input has ",
                inputs[i].shape());
  Kernel k;
  k.name = def.name.c_str();
  for (const auto* list : {&out_grads, &inputs, &outputs})
    for (const auto& a : *list)
      if (!a.is_none()) k.reads.push_back(a.var());
  for (size_t i = 0; i < nargs; ++i)
    if (!in_grads[i].is_none() && req[i] != op::OpReq::Null) k.writes.push_back(in_grads[i].var());
  Context ctx = inputs.empty() ? cpu() : inputs[0].ctx();
  k.ctx = ctx;
  k.fn = [&def, param, out_grads, inputs, outputs, in_grads, req, nargs, ctx, training] {
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
    def.backward(oc, param, ba);
  };
  return k;
}

void push(Kernel kernel) {
  note_context(kernel.ctx);
  auto fn = [fn = std::move(kernel.fn), ctx = kernel.ctx] {
    use_kernel_threads(ctx);
    fn();
  };
  engine::Engine::get().push(std::move(fn), kernel.ctx, kernel.reads, kernel.writes, t_priority, kernel.name);
}

void push_forward(const op::OpDef& def, const std::any& param, bool training, Context ctx,
                  const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs) {
  push(forward_kernel(def, param, training, ctx, inputs, nargs, outputs));
}

void push_backward(const op::OpDef& def, const std::any& param, bool training,
                   const std::vector<NDArray>& out_grads, const std::vector<NDArray>& inputs,
                   const std::vector<NDArray>& outputs, const std::vector<NDArray>& in_grads,
                   const std::vector<op::OpReq>& req) {
  push(backward_kernel(def, param, training, out_grads, inputs, outputs, in_grads, req));
}

}  // namespace detail

NDArray invoke1(const std::string& op, const std::vector<NDArray>& inputs, const op::AttrMap& attrs) {
  auto outs = invoke(op, inputs, attrs);
  BRAID_CHECK(outs.size() == 1, "operator ", op, " has ", outs.size(), " outputs; use invoke");
  return outs[0];
}

}  // namespace braid::nd
