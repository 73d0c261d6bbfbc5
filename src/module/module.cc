#include "braid/module/module.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/params.h"
#include "braid/kvstore/store_types.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"

namespace braid::mod {
namespace {

std::string epoch_file(const std::string& prefix, int epoch, const char* ext) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%04d.%s", epoch, ext);
  return prefix + suffix;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

Module::Module(Symbol symbol, std::vector<std::string> data_names, std::vector<std::string> label_names,
               std::vector<Context> contexts, std::vector<std::string> fixed_param_names)
    : symbol_(std::move(symbol)),
      data_names_(std::move(data_names)),
      fixed_param_names_(std::move(fixed_param_names)),
      contexts_(std::move(contexts)) {
  BRAID_CHECK(!contexts_.empty(), "Module: give at least one context");
  auto args = symbol_.list_arguments();
  for (const auto& n : data_names_)
    BRAID_CHECK(contains(args, n), "Module: data name '", n, "' is not an argument of the symbol");
  // MXNet drops label names the symbol does not have (a symbol without a loss layer).
  for (const auto& n : label_names)
    if (contains(args, n)) label_names_.push_back(n);
  for (const auto& a : args)
    if (!is_input(a)) param_names_.push_back(a);
  for (const auto& n : fixed_param_names_)
    BRAID_CHECK(contains(param_names_, n), "Module: fixed parameter '", n, "' is not a parameter of the symbol");
}

bool Module::is_input(const std::string& name) const {
  return contains(data_names_, name) || contains(label_names_, name);
}

// MXNet's _split_input_slice with equal work loads: each context gets round(batch / n) samples,
// the last the remainder.
std::pair<int64_t, int64_t> Module::slice_of(int64_t batch, size_t k) const {
  const auto n = static_cast<int64_t>(contexts_.size());
  const int64_t each = static_cast<int64_t>(std::llround(static_cast<double>(batch) / static_cast<double>(n)));
  const int64_t begin = std::min(batch, each * static_cast<int64_t>(k));
  const int64_t end = k + 1 == contexts_.size() ? batch : std::min(batch, begin + each);
  return {begin, end};
}

std::map<std::string, Shape> Module::slice_shapes(const std::map<std::string, Shape>& shapes, size_t k) const {
  std::map<std::string, Shape> out;
  for (const auto& [name, shape] : shapes) {
    auto dims = shape.dims();
    const auto [begin, end] = slice_of(shape[0], k);
    dims[0] = end - begin;
    out[name] = Shape(dims);
  }
  return out;
}

void Module::bind(const std::vector<io::DataDesc>& data_shapes, const std::vector<io::DataDesc>& label_shapes,
                  bool for_training, bool inputs_need_grad, bool force_rebind) {
  if (binded() && !force_rebind) {  // as MXNet: fit() after bind() keeps the bound executors
    std::cerr << "Module: already bound, ignoring bind(); pass force_rebind to bind again\n";
    return;
  }
  std::map<std::string, Shape> shapes;
  for (const auto& d : data_shapes) {
    BRAID_CHECK(contains(data_names_, d.name), "Module::bind: '", d.name, "' is not one of the data names");
    shapes[d.name] = d.shape;
  }
  for (const auto& d : label_shapes)
    if (contains(label_names_, d.name)) shapes[d.name] = d.shape;
  BRAID_CHECK(!data_shapes.empty() && data_shapes[0].shape.ndim() >= 1, "Module::bind needs the data shapes");
  batch_size_ = data_shapes[0].shape[0];
  BRAID_CHECK(batch_size_ >= static_cast<int64_t>(contexts_.size()), "Module::bind: a batch of ", batch_size_,
              " cannot be split over ", contexts_.size(), " contexts");
  std::vector<std::string> no_grad = fixed_param_names_;
  for (const auto& n : label_names_) no_grad.push_back(n);
  if (!inputs_need_grad)
    for (const auto& n : data_names_) no_grad.push_back(n);
  // Keep parameter values across a rebind.
  auto kept = binded() ? get_params() : std::pair<ParamMap, ParamMap>{};
  execs_.clear();
  for (size_t k = 0; k < contexts_.size(); ++k)
    execs_.push_back(std::make_unique<Executor>(Executor::simple_bind(
        symbol_, contexts_[k], slice_shapes(shapes, k), for_training ? GradReq::Write : GradReq::Null, {}, no_grad)));
  for_training_ = for_training;
  inputs_need_grad_ = inputs_need_grad;
  if (params_initialized_) set_params(kept.first, kept.second);
  if (!preloaded_arg_.empty()) {
    set_params(preloaded_arg_, preloaded_aux_);
    params_initialized_ = true;
  }
}

void Module::init_params(const init::InitializerPtr& initializer, const ParamMap& arg_params,
                         const ParamMap& aux_params, bool allow_missing, bool force_init) {
  BRAID_CHECK(binded(), "Module::init_params: call bind first");
  if (params_initialized_ && !force_init) return;
  auto fill = [&](const std::string& name, NDArray arr, const ParamMap& given) {
    if (auto it = given.find(name); it != given.end()) {
      BRAID_CHECK(it->second.shape() == arr.shape(), "Module::init_params: '", name, "' has shape ", it->second.shape(),
                  " but the symbol needs ", arr.shape());
      it->second.copyto(arr);
      return;
    }
    BRAID_CHECK(given.empty() || allow_missing, "Module::init_params: no value for '", name,
                "'; pass allow_missing to initialize it");
    BRAID_CHECK(initializer, "Module::init_params: no initializer for '", name, "'");
    (*initializer)(name, arr);
  };
  // The first context's copies are initialized, the others copy them.
  auto args = execs_[0]->arg_dict();
  auto aux = execs_[0]->aux_dict();
  for (const auto& n : param_names_) fill(n, args.at(n), arg_params);
  for (const auto& [n, a] : aux) fill(n, a, aux_params);
  for (size_t k = 1; k < execs_.size(); ++k) {
    auto other_args = execs_[k]->arg_dict();
    for (const auto& n : param_names_) args.at(n).copyto(other_args.at(n));
    for (const auto& [n, a] : execs_[k]->aux_dict()) aux.at(n).copyto(a);
  }
  params_initialized_ = true;
}

// Arguments from the first context (all copies are equal); auxiliary states (BatchNorm's moving
// statistics, which each context updates from its own slice) averaged over the contexts, as MXNet.
std::pair<ParamMap, ParamMap> Module::get_params() const {
  BRAID_CHECK(binded(), "Module::get_params: call bind first");
  ParamMap arg, aux;
  auto args = execs_[0]->arg_dict();
  for (const auto& n : param_names_) arg[n] = args.at(n).copyto(cpu());
  std::vector<std::map<std::string, NDArray>> aux_per_context;
  for (const auto& e : execs_) aux_per_context.push_back(e->aux_dict());
  for (const auto& [n, a] : aux_per_context[0]) {
    NDArray sum = a.copyto(cpu());
    for (size_t k = 1; k < execs_.size(); ++k) sum += aux_per_context[k].at(n).as_in_context(cpu());
    if (execs_.size() > 1) sum *= 1.0 / static_cast<double>(execs_.size());
    aux[n] = sum;
  }
  return {arg, aux};
}

void Module::set_params(const ParamMap& arg_params, const ParamMap& aux_params, bool allow_missing) {
  init_params(nullptr, arg_params, aux_params, allow_missing, true);
}

// The store of MXNet's model._create_kvstore (no store for one context unless distributed; "local"
// above 16M elements updates on the contexts): every parameter initialised, then pulled into
// every context's copy, so that all start from the same values (in a distributed job, worker 0's).
void Module::init_kvstore(const kv::TrainingStore& chosen) {
  kvstore_ = chosen.store;
  update_on_kvstore_ = chosen.update_on_kvstore;
  if (!kvstore_) return;
  if (update_on_kvstore_) kvstore_->set_optimizer(optimizer_);
  auto args = execs_[0]->arg_dict();
  for (size_t i = 0; i < param_names_.size(); ++i) {
    kvstore_->init(static_cast<int>(i), args.at(param_names_[i]));
    std::vector<NDArray> copies;
    for (const auto& exec : execs_) copies.push_back(exec->arg_dict().at(param_names_[i]));
    kvstore_->pull(static_cast<int>(i), copies, -static_cast<int>(i));
  }
  // A parameter server runs its own copy of the optimizer: give it the loaded states (worker 0).
  if (update_on_kvstore_ && !preloaded_states_path_.empty() && kv::store_type(kvstore_->type()).distributed) {
    if (kvstore_->rank() == 0) kvstore_->load_optimizer_states(preloaded_states_path_);
    kvstore_->barrier();
  }
}

void Module::init_optimizer(const std::string& kvstore, const std::string& optimizer,
                            const std::map<std::string, std::string>& optimizer_params, bool force_init) {
  BRAID_CHECK(binded() && params_initialized_, "Module::init_optimizer: call bind and init_params first");
  if (optimizer_ && !force_init) return;
  auto args = execs_[0]->arg_dict();
  int64_t largest = 0;
  for (const auto& n : param_names_) largest = std::max(largest, args.at(n).size());
  const kv::TrainingStore chosen = kv::create_for_training(kvstore, contexts_.size(), largest);
  // dist_sync and horovod sum the gradients of every worker's batch: the scale covers them all.
  int64_t scale_batch = batch_size_;
  if (chosen.store && chosen.store->num_workers() > 1 && !kv::store_type(chosen.store->type()).asynchronous)
    scale_batch *= chosen.store->num_workers();
  auto params = optimizer_params;
  if (!params.count("rescale_grad")) params["rescale_grad"] = std::to_string(1.0 / static_cast<double>(scale_batch));
  optimizer_ = optim::create(optimizer, params);
  std::map<int, std::string> idx2name;
  std::map<std::string, double> lr_mult, wd_mult;
  auto attrs = symbol_.attr_dict();
  for (size_t i = 0; i < param_names_.size(); ++i) {
    idx2name[static_cast<int>(i)] = param_names_[i];
    auto a = attrs.find(param_names_[i]);
    if (a == attrs.end()) continue;
    if (auto m = a->second.find("__lr_mult__"); m != a->second.end()) lr_mult[param_names_[i]] = std::stod(m->second);
    if (auto m = a->second.find("__wd_mult__"); m != a->second.end()) wd_mult[param_names_[i]] = std::stod(m->second);
  }
  optimizer_->set_idx2name(idx2name);
  optimizer_->set_lr_mult(lr_mult);
  optimizer_->set_wd_mult(wd_mult);
  if (!preloaded_states_.empty()) optimizer_->load_states(preloaded_states_);
  init_kvstore(chosen);
}

void Module::forward(const io::DataBatch& batch, std::optional<bool> is_train) {
  BRAID_CHECK(binded() && params_initialized_, "Module::forward: call bind and init_params first");
  BRAID_CHECK(batch.data.size() == data_names_.size(), "Module::forward: the batch has ", batch.data.size(),
              " data arrays but the module has ", data_names_.size(), " data names");
  std::map<std::string, NDArray> inputs;
  for (size_t i = 0; i < data_names_.size(); ++i) inputs[data_names_[i]] = batch.data[i];
  for (size_t i = 0; i < label_names_.size() && i < batch.label.size(); ++i) inputs[label_names_[i]] = batch.label[i];
  std::map<std::string, Shape> shapes;
  for (const auto& [n, a] : inputs) shapes[n] = a.shape();
  BRAID_CHECK(inputs.begin()->second.shape()[0] >= static_cast<int64_t>(contexts_.size()),
              "Module::forward: a batch of ", inputs.begin()->second.shape()[0], " cannot be split over ",
              contexts_.size(), " contexts");
  for (size_t k = 0; k < execs_.size(); ++k) {
    auto want = slice_shapes(shapes, k);
    auto args = execs_[k]->arg_dict();
    bool same = true;
    for (const auto& [n, s] : want) same = same && args.at(n).shape() == s;
    if (!same) execs_[k] = std::make_unique<Executor>(execs_[k]->reshape(want, true, true));
    std::map<std::string, NDArray> slices;
    for (const auto& [n, a] : inputs) {
      const auto [begin, end] = slice_of(a.shape()[0], k);
      slices[n] = execs_.size() == 1 ? a : a.slice(begin, end);
    }
    execs_[k]->forward(is_train.value_or(for_training_), slices);
  }
}

void Module::backward(const std::vector<NDArray>& out_grads) {
  BRAID_CHECK(binded() && for_training_, "Module::backward: bind with for_training first");
  for (size_t k = 0; k < execs_.size(); ++k) {
    std::vector<NDArray> slices;
    for (const auto& g : out_grads) {
      const auto [begin, end] = slice_of(g.shape()[0], k);
      slices.push_back(g.is_none() || execs_.size() == 1 ? g : g.slice(begin, end));
    }
    execs_[k]->backward(slices);
  }
}

void Module::update() {
  BRAID_CHECK(optimizer_, "Module::update: call init_optimizer first");
  std::vector<std::map<std::string, NDArray>> args, grads;
  for (const auto& e : execs_) {
    args.push_back(e->arg_dict());
    grads.push_back(e->grad_dict());
  }
  // With the kvstore updating: one list pushpull (each key pushed, then pulled, as MXNet's
  // push and pull; adjacent small keys may travel together), the first layers' first.
  std::vector<kv::Key> keys;
  std::vector<std::vector<NDArray>> pushed, pulled;
  std::vector<int> priorities;
  for (size_t i = 0; i < param_names_.size(); ++i) {
    const std::string& name = param_names_[i];
    if (!grads[0].count(name)) continue;  // fixed
    std::vector<NDArray> weight, grad;
    for (size_t k = 0; k < execs_.size(); ++k) {
      weight.push_back(args[k].at(name));
      grad.push_back(grads[k].at(name));
    }
    const int key = static_cast<int>(i);
    if (kvstore_ && update_on_kvstore_) {
      keys.emplace_back(key);
      pushed.push_back(std::move(grad));
      pulled.push_back(std::move(weight));
      priorities.push_back(-key);
      continue;
    }
    if (kvstore_)
      kvstore_->pushpull(key, grad, grad);
    else
      kv::sum_in_every_context(grad);
    // Every copy has the summed gradient: update the first and copy it to the others.
    optimizer_->update(key, weight[0], grad[0]);
    for (size_t k = 1; k < weight.size(); ++k) weight[0].copyto(weight[k]);
  }
  if (!keys.empty()) kvstore_->pushpull(keys, pushed, pulled, priorities);
}

void Module::update_metric(metric::EvalMetric& metric, const std::vector<NDArray>& labels) const {
  metric.update(labels, get_outputs());
}

NDArray Module::merged(const std::vector<std::vector<NDArray>>& per_context, size_t i) const {
  if (per_context.size() == 1) return per_context[0][i];
  std::vector<NDArray> parts;
  for (const auto& arrays : per_context) parts.push_back(arrays[i].as_in_context(contexts_[0]));
  return nd::invoke1("concat", parts, {{"dim", "0"}, {"num_args", std::to_string(parts.size())}});
}

std::vector<NDArray> Module::get_outputs() const {
  BRAID_CHECK(binded(), "Module::get_outputs: call bind and forward first");
  std::vector<std::vector<NDArray>> per_context;
  for (const auto& e : execs_) per_context.push_back(e->outputs());
  std::vector<NDArray> out;
  for (size_t i = 0; i < per_context[0].size(); ++i) out.push_back(merged(per_context, i));
  return out;
}

std::vector<NDArray> Module::get_input_grads() const {
  BRAID_CHECK(binded() && inputs_need_grad_, "Module::get_input_grads: bind with inputs_need_grad");
  std::vector<std::vector<NDArray>> per_context;
  for (const auto& e : execs_) {
    auto grads = e->grad_dict();
    per_context.emplace_back();
    for (const auto& n : data_names_) per_context.back().push_back(grads.at(n));
  }
  std::vector<NDArray> out;
  for (size_t i = 0; i < data_names_.size(); ++i) out.push_back(merged(per_context, i));
  return out;
}

void save_checkpoint(const std::string& prefix, int epoch, const Symbol& symbol, const ParamMap& arg_params,
                     const ParamMap& aux_params) {
  std::vector<std::pair<std::string, NDArray>> named;
  for (const auto& [n, a] : arg_params) named.emplace_back("arg:" + n, a);
  for (const auto& [n, a] : aux_params) named.emplace_back("aux:" + n, a);
  symbol.save(prefix + "-symbol.json");
  io::save(epoch_file(prefix, epoch, "params"), named);
}

void Module::save_checkpoint(const std::string& prefix, int epoch, bool save_optimizer_states) const {
  auto [arg, aux] = get_params();
  mod::save_checkpoint(prefix, epoch, symbol_, arg, aux);
  if (save_optimizer_states) {
    BRAID_CHECK(optimizer_, "save_checkpoint: no optimizer states yet; call init_optimizer first");
    const std::string path = epoch_file(prefix, epoch, "states");
    if (update_on_kvstore_ && kvstore_)
      kvstore_->save_optimizer_states(path);  // where the updates run
    else
      io::write_file_atomically(path, optimizer_->save_states());
  }
}

std::tuple<Symbol, ParamMap, ParamMap> load_checkpoint(const std::string& prefix, int epoch) {
  Symbol symbol = Symbol::load(prefix + "-symbol.json");
  const std::string path = epoch_file(prefix, epoch, "params");
  io::NamedArrays file = io::load(path);
  ParamMap arg, aux;
  for (size_t i = 0; i < file.names.size(); ++i) {
    const std::string& n = file.names[i];
    BRAID_CHECK(n.rfind("arg:", 0) == 0 || n.rfind("aux:", 0) == 0, path, ": '", n,
                "' is not a checkpoint name (arg:NAME or aux:NAME)");
    (n[1] == 'r' ? arg : aux)[n.substr(4)] = file.arrays[i];
  }
  return {symbol, arg, aux};
}

Module Module::load(const std::string& prefix, int epoch, bool load_optimizer_states,
                    std::vector<std::string> data_names, std::vector<std::string> label_names,
                    std::vector<Context> contexts) {
  auto [symbol, arg, aux] = load_checkpoint(prefix, epoch);
  Module m(symbol, std::move(data_names), std::move(label_names), std::move(contexts));
  m.preloaded_arg_ = arg;
  m.preloaded_aux_ = aux;
  if (load_optimizer_states) {
    m.preloaded_states_path_ = epoch_file(prefix, epoch, "states");
    m.preloaded_states_ = io::read_file(m.preloaded_states_path_, io::max_array_file_bytes());
  }
  return m;
}

}  // namespace braid::mod
