#include "braid/ndarray/invoke.h"

#include "braid/base/dim_math.h"
#include "braid/base/error.h"
#include "braid/base/np_shape.h"
#include "braid/ndarray/amp.h"
#include "braid/op/input_slots.h"
#include "braid/op/registry.h"
#include "braid/op/shape_inference.h"
#include "imperative/push_op.h"
#include "imperative/recorder.h"
#include "imperative/tracer.h"
#include "sparse_ops.h"

namespace braid::nd {
namespace {

std::string arg_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += cat(s.empty() ? "" : ", ", n);
  return s;
}

}  // namespace

void waitall() { engine::Engine::get().wait_for_all(); }

PriorityScope::PriorityScope(int priority) : saved_(imperative::set_priority(priority)) {}
PriorityScope::~PriorityScope() { imperative::set_priority(saved_); }

namespace {

std::vector<NDArray> run(const std::string& op_name, const std::vector<NDArray>& given, const op::AttrMap& attrs,
                         const std::vector<NDArray>& out, bool all_outputs) {
  if (auto results = detail::run_sparse(op_name, given, attrs, out, all_outputs)) return *results;
  const op::OpDef& def = op::Registry::get().find(op_name);
  std::any param = def.parse(attrs);
  std::vector<std::string> arg_names = def.list_arguments(param);
  std::vector<std::string> aux_names = def.list_aux(param);
  size_t nargs = arg_names.size(), naux = aux_names.size();
  BRAID_CHECK(given.size() == nargs + naux, "operator ", def.name, " takes ", nargs + naux, " inputs (",
              arg_list(arg_names), naux ? ", " : "", arg_list(aux_names), ") but got ", given.size());
  // Mixed precision: the inputs cast as the op's AMP category asks (braid/ndarray/amp.h).
  std::vector<NDArray> cast;
  const bool amp_on = amp::active();
  if (amp_on) cast = amp::cast_inputs(def, attrs, given, nargs);
  const std::vector<NDArray>& inputs = amp_on ? cast : given;

  Context ctx = cpu();
  if (!inputs.empty()) {
    ctx = inputs[0].ctx();
  } else if (auto it = attrs.find("ctx"); it != attrs.end()) {
    ctx = Context::parse(it->second);
  }
  if (!def.runs_on_host()) def.kernels(ctx);  // throws here, before any output is allocated, when def cannot run on ctx
  std::vector<Shape> in_shapes(nargs), aux_shapes(naux);
  std::vector<DType> in_types(nargs), aux_types(naux);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NDArray& a = inputs[i];
    BRAID_CHECK(!a.is_none(), "operator ", def.name, ": input ", i < nargs ? arg_names[i] : aux_names[i - nargs],
                " is None");
    BRAID_CHECK(a.ctx() == ctx, "operator ", def.name, ": inputs are on different contexts (", ctx, " and ", a.ctx(),
                "); copy them with as_in_context first");
    (i < nargs ? in_shapes[i] : aux_shapes[i - nargs]) = a.shape();
    (i < nargs ? in_types[i] : aux_types[i - nargs]) = a.dtype();
  }
  int nout = def.num_outputs(param);
  int nvisible = def.num_visible_outputs(param);
  BRAID_CHECK(out.empty() || static_cast<int>(out.size()) == nvisible, "operator ", def.name, " has ", nvisible,
              " outputs but ", out.size(), " out arrays were given");
  std::vector<Shape> out_shapes(static_cast<size_t>(nout));
  std::vector<DType> out_types(static_cast<size_t>(nout), kDTypeUnknown);
  for (size_t i = 0; i < out.size(); ++i) {
    out_shapes[i] = out[i].shape();
    out_types[i] = out[i].dtype();
  }
  {
    const NpShapeScope exact_shapes(true);  // the inputs are arrays: a 0 in their shapes is empty
    bool complete = def.infer_shape(param, in_shapes, out_shapes, aux_shapes);
    for (size_t i = 0; i < nargs; ++i)
      BRAID_CHECK(in_shapes[i] == inputs[i].shape(), "operator ", def.name, ": input ", arg_names[i], " has shape ",
                  inputs[i].shape(), " but ", in_shapes[i], " is required");
    if (!complete && def.value_dependent_shape) {
      std::vector<Shape> from_values = def.value_dependent_shape(param, inputs);
      for (size_t i = 0; i < out_shapes.size(); ++i)
        op::merge_shape(out_shapes[i], from_values.at(i), def.name, "output");
      complete = true;
    }
    BRAID_CHECK(complete, "operator ", def.name, ": cannot infer the output shapes from inputs");
  }
  for (size_t i = 0; i < out_shapes.size(); ++i) check_shape(out_shapes[i], cat("operator ", def.name, ": output ", i));
  def.infer_type(param, in_types, out_types, aux_types);
  for (DType& t : out_types)
    if (t == kDTypeUnknown) t = DType::Float32;  // nothing fixes it (_zeros_without_dtype): MXNet's default
  for (size_t i = 0; i < out.size(); ++i)
    BRAID_CHECK(out_shapes[i] == out[i].shape() && out_types[i] == out[i].dtype(), "operator ", def.name,
                ": out array ", i, " is ", out[i].shape(), " ", dtype_name(out[i].dtype()), " but the result is ",
                out_shapes[i], " ", dtype_name(out_types[i]));

  imperative::Recorder* recorder = imperative::recorder();
  if (recorder)
    for (const auto& o : out) recorder->check_writable(o, def.name.c_str());
  std::vector<NDArray> outputs(out.begin(), out.end());
  for (int i = static_cast<int>(out.size()); i < nout; ++i)
    outputs.emplace_back(out_shapes[static_cast<size_t>(i)], ctx, out_types[static_cast<size_t>(i)]);

  bool training = imperative::is_training();
  if (recorder) recorder->record_op(def, param, attrs, training, inputs, nargs, outputs, nvisible);
  // Into given arrays of another CPU context (a copy between CPU contexts): the kernel runs on
  // theirs, the context that uses the result, instead of queueing behind the source's work.
  const bool into_other_cpu =
      !out.empty() && out[0].ctx() != ctx && ctx.is_cpu_family() && out[0].ctx().is_cpu_family();
  imperative::push_forward(def, param, training, into_other_cpu ? out[0].ctx() : ctx, inputs, nargs, outputs);
  if (imperative::Tracer* t = imperative::tracer()) t->record(def, op_name, attrs, inputs, outputs);
  if (!all_outputs) outputs.resize(static_cast<size_t>(nvisible));
  return outputs;
}

}  // namespace

std::vector<NDArray> invoke(const std::string& op, const std::vector<NDArray>& inputs, const op::AttrMap& attrs,
                            const std::vector<NDArray>& out) {
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
    BRAID_CHECK(!placed[i].is_none(), "operator ", def.name, ": input '", slots[i],
                "' is missing; its inputs are: ", arg_list(slots));
  return run(op, placed, attrs, out, false);
}

std::vector<NDArray> invoke_all(const std::string& op, const std::vector<NDArray>& inputs, const op::AttrMap& attrs) {
  return run(op, inputs, attrs, {}, true);
}

void invoke_backward(const std::string& op_name, const op::AttrMap& attrs, const std::vector<NDArray>& out_grads,
                     const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                     const std::vector<NDArray>& in_grads, bool accumulate) {
  const op::OpDef& def = op::Registry::get().find(op_name);
  std::vector<op::OpReq> req;
  for (const auto& g : in_grads)
    req.push_back(g.is_none() ? op::OpReq::Null : accumulate ? op::OpReq::Add : op::OpReq::Write);
  imperative::push_backward(def, def.parse(attrs), imperative::is_training(), out_grads, inputs, outputs, in_grads,
                            req);
}

NDArray invoke1(const std::string& op, const std::vector<NDArray>& inputs, const op::AttrMap& attrs) {
  auto outs = invoke(op, inputs, attrs);
  BRAID_CHECK(outs.size() == 1, "operator ", op, " has ", outs.size(), " outputs; use invoke");
  return outs[0];
}

}  // namespace braid::nd
