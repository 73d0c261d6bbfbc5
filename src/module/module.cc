#include "braid/module/module.h"

#include <algorithm>
#include <cstdio>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"

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
      fixed_param_names_(std::move(fixed_param_names)) {
  BRAID_CHECK(contexts.size() == 1, "Module: ", contexts.size(),
              " contexts given; data parallelism over several contexts is not built yet, use one");
  ctx_ = contexts[0];
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

bool Module::is_input(const std::string& name) const { return contains(data_names_, name) || contains(label_names_, name); }

void Module::bind(const std::vector<io::DataDesc>& data_shapes, const std::vector<io::DataDesc>& label_shapes,
                  bool for_training, bool inputs_need_grad, bool force_rebind) {
  BRAID_CHECK(!exec_ || force_rebind, "Module: already bound; pass force_rebind to bind again");
  std::map<std::string, Shape> shapes;
  for (const auto& d : data_shapes) {
    BRAID_CHECK(contains(data_names_, d.name), "Module::bind: '", d.name, "' is not one of the data names");
    shapes[d.name] = d.shape;
  }
  for (const auto& d : label_shapes)
    if (contains(label_names_, d.name)) shapes[d.name] = d.shape;
  BRAID_CHECK(!data_shapes.empty() && data_shapes[0].shape.ndim() >= 1, "Module::bind needs the data shapes");
  batch_size_ = data_shapes[0].shape[0];
  std::vector<std::string> no_grad = fixed_param_names_;
  for (const auto& n : label_names_) no_grad.push_back(n);
  if (!inputs_need_grad)
    for (const auto& n : data_names_) no_grad.push_back(n);
  // Keep parameter values across a rebind.
  auto kept = exec_ ? get_params() : std::pair<ParamMap, ParamMap>{};
  exec_ = std::make_unique<Executor>(Executor::simple_bind(symbol_, ctx_, shapes,
                                                           for_training ? GradReq::Write : GradReq::Null, {}, no_grad));
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
  BRAID_CHECK(exec_, "Module::init_params: call bind first");
  if (params_initialized_ && !force_init) return;
  auto fill = [&](const std::string& name, NDArray arr, const ParamMap& given) {
    if (auto it = given.find(name); it != given.end()) {
      BRAID_CHECK(it->second.shape() == arr.shape(), "Module::init_params: '", name, "' has shape ",
                  it->second.shape(), " but the symbol needs ", arr.shape());
      it->second.copyto(arr);
      return;
    }
    BRAID_CHECK(given.empty() || allow_missing, "Module::init_params: no value for '", name,
                "'; pass allow_missing to initialize it");
    BRAID_CHECK(initializer, "Module::init_params: no initializer for '", name, "'");
    (*initializer)(name, arr);
  };
  auto args = exec_->arg_dict();
  for (const auto& n : param_names_) fill(n, args.at(n), arg_params);
  for (const auto& [n, a] : exec_->aux_dict()) fill(n, a, aux_params);
  params_initialized_ = true;
}

std::pair<ParamMap, ParamMap> Module::get_params() const {
  BRAID_CHECK(exec_, "Module::get_params: call bind first");
  ParamMap arg, aux;
  auto args = exec_->arg_dict();
  for (const auto& n : param_names_) arg[n] = args.at(n).copyto(cpu());
  for (const auto& [n, a] : exec_->aux_dict()) aux[n] = a.copyto(cpu());
  return {arg, aux};
}

void Module::set_params(const ParamMap& arg_params, const ParamMap& aux_params, bool allow_missing) {
  init_params(nullptr, arg_params, aux_params, allow_missing, true);
}

void Module::init_optimizer(const std::string& kvstore, const std::string& optimizer,
                            const std::map<std::string, std::string>& optimizer_params, bool force_init) {
  BRAID_CHECK(exec_ && params_initialized_, "Module::init_optimizer: call bind and init_params first");
  BRAID_CHECK(kvstore.empty() || kvstore == "local" || kvstore == "device", "Module: kvstore '", kvstore,
              "' is not available yet (KVStore comes with a later issue); use \"local\"");
  if (optimizer_ && !force_init) return;
  auto params = optimizer_params;
  if (!params.count("rescale_grad")) params["rescale_grad"] = std::to_string(1.0 / static_cast<double>(batch_size_));
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
}

std::map<std::string, Shape> Module::input_shapes(const io::DataBatch& batch) const {
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < data_names_.size() && i < batch.data.size(); ++i) shapes[data_names_[i]] = batch.data[i].shape();
  for (size_t i = 0; i < label_names_.size() && i < batch.label.size(); ++i)
    shapes[label_names_[i]] = batch.label[i].shape();
  return shapes;
}

void Module::forward(const io::DataBatch& batch, std::optional<bool> is_train) {
  BRAID_CHECK(exec_ && params_initialized_, "Module::forward: call bind and init_params first");
  BRAID_CHECK(batch.data.size() == data_names_.size(), "Module::forward: the batch has ", batch.data.size(),
              " data arrays but the module has ", data_names_.size(), " data names");
  auto shapes = input_shapes(batch);
  auto args = exec_->arg_dict();
  bool same = true;
  for (const auto& [n, s] : shapes) same = same && args.at(n).shape() == s;
  if (!same) exec_ = std::make_unique<Executor>(exec_->reshape(shapes, true, true));
  std::map<std::string, NDArray> inputs;
  for (size_t i = 0; i < data_names_.size(); ++i) inputs[data_names_[i]] = batch.data[i];
  for (size_t i = 0; i < label_names_.size() && i < batch.label.size(); ++i) inputs[label_names_[i]] = batch.label[i];
  exec_->forward(is_train.value_or(for_training_), inputs);
}

void Module::backward(const std::vector<NDArray>& out_grads) {
  BRAID_CHECK(exec_ && for_training_, "Module::backward: bind with for_training first");
  exec_->backward(out_grads);
}

void Module::update() {
  BRAID_CHECK(optimizer_, "Module::update: call init_optimizer first");
  auto args = exec_->arg_dict();
  auto grads = exec_->grad_dict();
  for (size_t i = 0; i < param_names_.size(); ++i) {
    auto g = grads.find(param_names_[i]);
    if (g == grads.end()) continue;  // fixed
    optimizer_->update(static_cast<int>(i), args.at(param_names_[i]), g->second);
  }
}

void Module::update_metric(gluon::metric::EvalMetric& metric, const std::vector<NDArray>& labels) const {
  metric.update(labels, get_outputs());
}

std::vector<NDArray> Module::get_outputs() const {
  BRAID_CHECK(exec_, "Module::get_outputs: call bind and forward first");
  return exec_->outputs();
}

std::vector<NDArray> Module::get_input_grads() const {
  BRAID_CHECK(exec_ && inputs_need_grad_, "Module::get_input_grads: bind with inputs_need_grad");
  auto grads = exec_->grad_dict();
  std::vector<NDArray> out;
  for (const auto& n : data_names_) out.push_back(grads.at(n));
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
    io::write_file_atomically(epoch_file(prefix, epoch, "states"), optimizer_->save_states());
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

Module Module::load(const std::string& prefix, int epoch, bool load_optimizer_states, std::vector<std::string> data_names,
                    std::vector<std::string> label_names, std::vector<Context> contexts) {
  auto [symbol, arg, aux] = load_checkpoint(prefix, epoch);
  Module m(symbol, std::move(data_names), std::move(label_names), std::move(contexts));
  m.preloaded_arg_ = arg;
  m.preloaded_aux_ = aux;
  if (load_optimizer_states) m.preloaded_states_ = io::read_file(epoch_file(prefix, epoch, "states"));
  return m;
}

}  // namespace braid::mod
