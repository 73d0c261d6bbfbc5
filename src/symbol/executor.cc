#include "braid/symbol/executor.h"

#include <sstream>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "compressed_arguments.h"
#include "eliminate_common_expr.h"
#include "exec_plan.h"
#include "run_state.h"

namespace braid {

using symbol::detail::BindInfo;
using symbol::detail::Plan;
using symbol::detail::RunState;

namespace {

void check_count(const char* what, size_t got, const std::vector<std::string>& names) {
  if (got == names.size()) return;
  std::string all;
  for (const auto& n : names) all += cat(all.empty() ? "" : ", ", n);
  throw Error(cat("bind: ", got, " ", what, " given but the symbol has ", names.size(), " (", all, ")"));
}

}  // namespace

bool ExecutorOptions::default_bulk() { return env_int({"BRAID_EXEC_BULK_EXEC", "MXNET_EXEC_BULK_EXEC_TRAIN"}, 1) != 0; }

bool ExecutorOptions::default_eliminate_common_expr() {
  return env_int({"BRAID_ELIMINATE_COMMON_EXPR", "MXNET_ELIMINATE_COMMON_EXPR"}, 1) != 0;
}

bool ExecutorOptions::default_channels_last() { return env_int({"BRAID_EXEC_CHANNELS_LAST"}, 1) != 0; }

Executor::Executor(Executor&&) noexcept = default;
Executor& Executor::operator=(Executor&&) noexcept = default;
Executor::~Executor() = default;

Executor Executor::bind(const Symbol& symbol, Context ctx, const std::vector<NDArray>& args,
                        const std::vector<NDArray>& args_grad, const std::vector<GradReq>& grad_req,
                        const std::vector<NDArray>& aux_states, const std::map<std::string, Context>& group2ctx,
                        const ExecutorOptions& options) {
  return bind_sharing(symbol, ctx, args, args_grad, grad_req, aux_states, group2ctx, options, {});
}

Executor Executor::bind_sharing(const Symbol& symbol, Context ctx, const std::vector<NDArray>& args,
                                const std::vector<NDArray>& args_grad, const std::vector<GradReq>& grad_req,
                                const std::vector<NDArray>& aux_states, const std::map<std::string, Context>& group2ctx,
                                const ExecutorOptions& options, const std::vector<NDArray>& shared_slots) {
  auto arg_names = symbol.list_arguments(), aux_names = symbol.list_auxiliary_states();
  check_count("arguments", args.size(), arg_names);
  check_count("aux states", aux_states.size(), aux_names);
  BRAID_CHECK(args_grad.empty() || args_grad.size() == args.size(), "bind: ", args_grad.size(),
              " argument gradients for ", args.size(), " arguments (give one per argument, None where unwanted)");
  BRAID_CHECK(grad_req.size() <= 1 || grad_req.size() == args.size(), "bind: ", grad_req.size(),
              " grad_req values for ", args.size(), " arguments");
  BindInfo info;
  info.ctx = ctx;
  info.group2ctx = group2ctx;
  info.options = options;
  std::vector<NDArray> grads(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    BRAID_CHECK(!args[i].is_none(), "bind: argument ", arg_names[i], " is None");
    info.arg_shapes.push_back(args[i].shape());
    info.arg_types.push_back(args[i].dtype());
    info.arg_ctx.push_back(args[i].ctx());
    GradReq req = grad_req.empty() ? GradReq::Write : grad_req.size() == 1 ? grad_req[0] : grad_req[i];
    // As MXNet, an argument without a gradient array gets none, whatever grad_req says.
    if (i >= args_grad.size() || args_grad[i].is_none()) req = GradReq::Null;
    if (req != GradReq::Null)
      BRAID_CHECK(args_grad[i].shape() == args[i].shape(), "bind: the gradient array of ", arg_names[i], " has shape ",
                  args_grad[i].shape(), " but the argument has ", args[i].shape());
    if (i < args_grad.size()) grads[i] = args_grad[i];  // kept with grad_req null too (grad_dict shows it)
    info.grad_req.push_back(req);
  }
  for (size_t i = 0; i < aux_states.size(); ++i) {
    BRAID_CHECK(!aux_states[i].is_none(), "bind: aux state ", aux_names[i], " is None");
    info.aux_shapes.push_back(aux_states[i].shape());
    info.aux_types.push_back(aux_states[i].dtype());
    info.aux_ctx.push_back(aux_states[i].ctx());
  }
  Executor ex;
  ex.symbol_ = symbol;
  ex.optimized_ = options.eliminate_common_expr ? symbol::detail::eliminate_common_expr(symbol) : symbol;
  ex.ctx_ = ctx;
  ex.group2ctx_ = group2ctx;
  ex.options_ = options;
  ex.grad_req_ = info.grad_req;
  ex.plan_ = std::make_shared<const Plan>(symbol::detail::make_plan(ex.optimized_.outputs(), info));
  ex.compressed_ = symbol::detail::compressed_arrays(args, grads, aux_states);
  if (!ex.compressed_) {
    ex.state_ = symbol::detail::make_state(*ex.plan_, args, aux_states, grads, shared_slots);
    return ex;
  }
  auto& c = *ex.compressed_;
  c.output_stypes = symbol::detail::output_stypes(ex.optimized_.outputs(), args, aux_states);
  ex.state_ = symbol::detail::make_state(*ex.plan_, symbol::detail::dense_stand_ins(args, c.sparse_args),
                                         symbol::detail::dense_stand_ins(aux_states, c.sparse_aux),
                                         symbol::detail::dense_stand_ins(grads, c.sparse_grads), shared_slots);
  return ex;
}

Executor Executor::simple_bind(const Symbol& symbol, Context ctx, const std::map<std::string, Shape>& shapes,
                               GradReq grad_req, const std::map<std::string, DType>& types,
                               const std::vector<std::string>& no_grad, const std::map<std::string, Context>& group2ctx,
                               const ExecutorOptions& options, const std::map<std::string, StorageType>& stypes) {
  auto s = symbol.infer_shape(shapes);
  auto arg_names = symbol.list_arguments(), aux_names = symbol.list_auxiliary_states();
  // The given dtypes, the variables' own (__dtype__) and what follows from them; as MXNet, the
  // inputs still unknown then are float32.
  std::map<std::string, DType> known_types = types;
  const auto partial = symbol.infer_type(known_types);
  for (size_t i = 0; i < arg_names.size(); ++i)
    if (!known_types.count(arg_names[i]))
      known_types[arg_names[i]] = partial.arg[i] == kDTypeUnknown ? DType::Float32 : partial.arg[i];
  for (size_t i = 0; i < aux_names.size(); ++i)
    if (!known_types.count(aux_names[i]))
      known_types[aux_names[i]] = partial.aux[i] == kDTypeUnknown ? DType::Float32 : partial.aux[i];
  auto t = symbol.infer_type(known_types);
  // A variable made in a ctx_group lives on that group's context.
  auto attrs = symbol.attr_dict();
  auto where = [&](const std::string& name) {
    auto a = attrs.find(name);
    if (a == attrs.end() || !a->second.count("__ctx_group__")) return ctx;
    auto c = group2ctx.find(a->second.at("__ctx_group__"));
    return c == group2ctx.end() ? ctx : c->second;
  };
  // The storage type given, else the variable's (__storage_type__, MXNet's code).
  auto stype_of = [&](const std::string& name) {
    if (auto given = stypes.find(name); given != stypes.end()) return given->second;
    auto a = attrs.find(name);
    if (a == attrs.end() || !a->second.count("__storage_type__")) return StorageType::Default;
    const std::string& code = a->second.at("__storage_type__");
    return code == "1" ? StorageType::RowSparse : code == "2" ? StorageType::CSR : StorageType::Default;
  };
  const std::map<std::string, StorageType> embedding_grads = symbol::detail::embedding_grad_stypes(symbol);
  auto zeros = [](StorageType stype, const Shape& shape, Context c, DType dtype) {
    return stype == StorageType::Default ? nd::zeros(shape, c, dtype) : sparse::zeros(stype, shape, c, dtype);
  };
  std::vector<NDArray> args, grads, aux;
  std::vector<GradReq> reqs;
  for (size_t i = 0; i < arg_names.size(); ++i) {
    Context c = where(arg_names[i]);
    const StorageType stype = stype_of(arg_names[i]);
    args.push_back(zeros(stype, s.arg[i], c, t.arg[i]));
    bool wanted = grad_req != GradReq::Null && std::find(no_grad.begin(), no_grad.end(), arg_names[i]) == no_grad.end();
    auto given = embedding_grads.find(arg_names[i]);
    const StorageType grad_stype = given != embedding_grads.end()    ? given->second
                                   : stype == StorageType::RowSparse ? stype
                                                                     : StorageType::Default;
    grads.push_back(wanted ? zeros(grad_stype, s.arg[i], c, t.arg[i]) : NDArray());
    reqs.push_back(wanted ? grad_req : GradReq::Null);
  }
  for (size_t i = 0; i < s.aux.size(); ++i) aux.push_back(nd::zeros(s.aux[i], where(aux_names[i]), t.aux[i]));
  return bind(symbol, ctx, args, grads, reqs, aux, group2ctx, options);
}

void Executor::forward(bool is_train, const std::map<std::string, NDArray>& inputs) {
  if (!inputs.empty()) {
    auto names = symbol_.list_arguments();
    for (const auto& [name, array] : inputs) {
      auto it = std::find(names.begin(), names.end(), name);
      BRAID_CHECK(it != names.end(), "forward: '", name, "' is not an argument of the symbol");
      const NDArray& dst = arg_arrays()[static_cast<size_t>(it - names.begin())];
      BRAID_CHECK(array.shape() == dst.shape(), "forward: ", name, " has shape ", array.shape(), " but was bound with ",
                  dst.shape(), "; use reshape for new shapes");
      array.copyto(dst);
    }
  }
  if (compressed_ && !is_train) {
    symbol::detail::infer_with_ndarrays(*compressed_, optimized_.outputs());
    forwarded_ = false;  // a backward runs the planned (training) forward first
    return;
  }
  if (compressed_) symbol::detail::copy_in(*compressed_, *state_);
  symbol::detail::run_forward(*plan_, *state_, is_train);
  if (compressed_) symbol::detail::convert_outputs(*compressed_, *state_);
  forwarded_ = true;
}

void Executor::backward(const std::vector<NDArray>& out_grads) {
  // As MXNet, a backward may follow an inference forward: it differentiates the values that
  // forward computed (ops that act differently in training, such as Dropout, as they ran).
  // MXNet also runs a backward with no forward before, on whatever the arrays hold; Braid runs
  // the training forward first, so that the gradient is the one of the bound arguments.
  if (!plan_->has_backward) return;  // no argument wants a gradient: nothing to compute (as MXNet)
  if (!forwarded_) forward(true, {});
  std::vector<NDArray> heads = out_grads;  // the kernels read dense head gradients
  for (NDArray& h : heads)
    if (!h.is_none() && h.is_sparse()) h = sparse::cast_storage(h, StorageType::Default);
  symbol::detail::run_backward(*plan_, *state_, heads);
  if (compressed_) symbol::detail::copy_out(*compressed_, *state_);
}

const std::vector<NDArray>& Executor::outputs() const {
  return compressed_ && !compressed_->outputs.empty() ? compressed_->outputs : state_->outputs;
}
const std::vector<NDArray>& Executor::arg_arrays() const { return compressed_ ? compressed_->args : state_->args; }
const std::vector<NDArray>& Executor::grad_arrays() const {
  return compressed_ ? compressed_->arg_grads : state_->arg_grads;
}
const std::vector<NDArray>& Executor::aux_arrays() const { return compressed_ ? compressed_->aux : state_->aux; }

namespace {

std::map<std::string, NDArray> by_name(const std::vector<std::string>& names, const std::vector<NDArray>& arrays) {
  std::map<std::string, NDArray> out;
  for (size_t i = 0; i < names.size(); ++i)
    if (!arrays[i].is_none()) out[names[i]] = arrays[i];
  return out;
}

}  // namespace

std::map<std::string, NDArray> Executor::arg_dict() const { return by_name(symbol_.list_arguments(), arg_arrays()); }
std::map<std::string, NDArray> Executor::grad_dict() const { return by_name(symbol_.list_arguments(), grad_arrays()); }
std::map<std::string, NDArray> Executor::aux_dict() const {
  return by_name(symbol_.list_auxiliary_states(), aux_arrays());
}
std::map<std::string, NDArray> Executor::output_dict() const { return by_name(symbol_.list_outputs(), outputs()); }

const PlanStats& Executor::plan_stats() const { return plan_->stats; }

void Executor::set_monitor_callback(MonitorCallback callback, bool monitor_all) {
  // Monitoring sees the nodes as the graph has them: rebind unfused, not bulk, on the same arrays.
  ExecutorOptions options = options_;
  options.fuse = !callback;
  options.bulk = !callback && ExecutorOptions::default_bulk();
  options.channels_last = !callback && ExecutorOptions::default_channels_last();
  options.all_input_grads = static_cast<bool>(callback);
  *this = bind(symbol_, ctx_, arg_arrays(), grad_arrays(), grad_req_, aux_arrays(), group2ctx_, options);
  state_->monitor = std::move(callback);
  state_->monitor_all = monitor_all;
  state_->arg_names = symbol_.list_arguments();
  state_->aux_names = symbol_.list_auxiliary_states();
}

Executor Executor::reshape(const std::map<std::string, Shape>& shapes, bool partial_shaping,
                           bool allow_up_sizing) const {
  auto arg_names = symbol_.list_arguments();
  std::map<std::string, Shape> known = shapes;
  auto s = symbol_.infer_shape(known);
  auto remake = [&](const NDArray& old, const Shape& shape, const std::string& name) {
    if (old.is_none() || old.shape() == shape) return old;
    BRAID_CHECK(partial_shaping || shapes.count(name), "reshape: the shape of ", name, " would change from ",
                old.shape(), " to ", shape, "; give its new shape or pass partial_shaping");
    BRAID_CHECK(allow_up_sizing || shape.size() <= old.size(), "reshape: ", name, " would grow from ", old.shape(),
                " to ", shape, "; pass allow_up_sizing to allocate more memory");
    if (shape.size() > old.size() || shape.size() == 0) return NDArray(shape, old.ctx(), old.dtype());
    return old.reshape({old.size()}).slice(0, shape.size()).reshape(shape.dims());  // the start of the old memory
  };
  std::vector<NDArray> args, grads, aux;
  for (size_t i = 0; i < arg_names.size(); ++i) {
    args.push_back(remake(arg_arrays()[i], s.arg[i], arg_names[i]));
    grads.push_back(remake(grad_arrays()[i], s.arg[i], arg_names[i]));
  }
  auto aux_names = symbol_.list_auxiliary_states();
  for (size_t i = 0; i < aux_names.size(); ++i) aux.push_back(remake(aux_arrays()[i], s.aux[i], aux_names[i]));
  Executor reshaped = bind_sharing(symbol_, ctx_, args, grads, grad_req_, aux, group2ctx_, options_, state_->slots);
  reshaped.state_->monitor = state_->monitor;  // a monitored executor stays monitored (options_ say how)
  reshaped.state_->monitor_all = state_->monitor_all;
  reshaped.state_->arg_names = state_->arg_names;
  reshaped.state_->aux_names = state_->aux_names;
  return reshaped;
}

std::string Executor::debug_str() const {
  std::ostringstream os;
  auto value = [&](uint32_t v) {
    if (v == symbol::detail::kNoValue) return std::string("-");
    const auto& val = plan_->values[v];
    const char* kinds[] = {"arg", "aux", "grad", "slot"};
    return cat(kinds[static_cast<int>(val.kind)], val.index, val.shape);
  };
  auto list = [&](const std::vector<uint32_t>& ids) {
    std::string s;
    for (uint32_t v : ids) s += (s.empty() ? "" : " ") + value(v);
    return s;
  };
  for (const auto& s : plan_->steps)
    os << "forward  " << s.name << " [" << (s.def ? s.def->name : "fused") << "] " << list(s.inputs) << " -> "
       << list(s.outputs) << "\n";
  for (auto it = plan_->steps.rbegin(); it != plan_->steps.rend(); ++it)
    if (it->backward)
      os << "backward " << it->name << " " << list(it->out_grads) << " -> " << list(it->in_grads) << "\n";
  const PlanStats& st = plan_->stats;
  os << "buffers: " << plan_->slots.size() << ", " << st.planned_bytes << " bytes planned, " << st.unplanned_bytes
     << " unplanned; " << st.inplace_ops << " in place, " << st.fused_ops << " ops fused, " << st.channels_last_ops
     << " ops on NHWC\n";
  os << "Total " << (st.planned_bytes >> 20) << " MB allocated\n";  // MXNet's last line, which tools parse
  return os.str();
}

}  // namespace braid
