#include "braid/gluon/block.h"

#include <mutex>
#include <utility>

#include "braid/base/error.h"
#include "braid/io/params.h"

namespace braid::gluon {
namespace {

thread_local Block* t_scope = nullptr;                       // the block whose name_scope() is active
thread_local std::shared_ptr<const ParameterDict> t_shared;  // for the next block (ShareParameters)

/// MXNet's NameManager: a process-wide counter per hint for blocks created outside any scope.
std::string next_global_name(const std::string& hint) {
  static std::mutex mu;
  static std::map<std::string, int> counters;
  std::lock_guard lock(mu);
  return hint + std::to_string(counters[hint]++);
}

}  // namespace

NameScope::NameScope(Block& block) : prev_(t_scope) {
  if (!block.empty_prefix_) t_scope = &block;
}
NameScope::~NameScope() { t_scope = prev_; }

ShareParameters::ShareParameters(const ParameterDict& shared)
    : prev_(std::exchange(t_shared, std::make_shared<ParameterDict>(shared))) {}
ShareParameters::~ShareParameters() { t_shared = prev_; }

Block::Block(const std::string& hint, std::optional<std::string> prefix)
    : hint_(hint), empty_prefix_(prefix && prefix->empty()) {
  std::string own;
  if (t_scope == nullptr) {
    prefix_ = prefix ? *prefix : next_global_name(hint) + "_";
  } else {
    own = prefix ? *prefix : hint + std::to_string(t_scope->child_counters_[hint]++) + "_";
    prefix_ = t_scope->prefix_ + own;
  }
  // As MXNet: a block given shared parameters names its own after the shared dictionary; its
  // children name theirs after it and share the same dictionary.
  if (auto shared = std::exchange(t_shared, nullptr))
    params_ = ParameterDict(shared->prefix(), shared);
  else if (t_scope)
    params_ = ParameterDict(t_scope->params_.prefix() + own, t_scope->params_.shared());
  else
    params_ = ParameterDict(prefix_);
}

std::string Block::name() const {
  return !prefix_.empty() && prefix_.back() == '_' ? prefix_.substr(0, prefix_.size() - 1) : prefix_;
}

void Block::add_child(BlockPtr child, const std::string& name) {
  BRAID_CHECK(child, "block ", prefix_, ": cannot register a null child");
  const std::string key = name.empty() ? std::to_string(children_.size()) : name;
  for (auto& [n, c] : children_) {
    if (n == key) {
      c = std::move(child);  // re-assigning the attribute replaces the child, as in MXNet
      children_changed();
      return;
    }
  }
  children_.emplace_back(key, std::move(child));
  children_changed();
}

ParameterPtr Block::register_parameter(const std::string& name, Shape shape, GradReq grad_req,
                                       init::InitializerPtr init, DType dtype, bool allow_deferred_init) {
  for (const auto& [n, p] : reg_params_)
    BRAID_CHECK(n != name, "block ", prefix_, ": a parameter named '", name, "' is already registered");
  ParameterPtr p = params_.get(name, std::move(shape), dtype, grad_req, std::move(init), allow_deferred_init);
  reg_params_.emplace_back(name, p);
  return p;
}

void Block::register_attribute(const std::string& name, const ParameterPtr& p) {
  for (auto& [n, q] : reg_params_) {
    if (n == name) {
      q = p;  // re-assigning the attribute replaces it
      return;
    }
  }
  if (!params_.contains(p->name())) params_.add(p);
  reg_params_.emplace_back(name, p);
}

ParameterDict Block::collect_params(const std::string& select) const {
  ParameterDict all(params_.prefix());  // MXNet: the parameters' prefix (the shared one's, when shared)
  all.update(params_);
  for (const auto& [n, c] : children_) all.update(c->collect_params());
  return select.empty() ? all : all.select(select);
}

std::vector<std::pair<std::string, ParameterPtr>> Block::collect_params_with_prefix(const std::string& prefix) const {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  std::vector<std::pair<std::string, ParameterPtr>> out;
  for (const auto& [n, param] : reg_params_) out.emplace_back(p + n, param);
  for (const auto& [n, c] : children_) {
    auto sub = c->collect_params_with_prefix(p + n);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

void Block::initialize(const init::InitializerPtr& init, const std::vector<Context>& ctx, bool force_reinit) {
  collect_params().initialize(init, ctx, force_reinit);
}

void Block::save_parameters(const std::string& path) const {
  std::vector<std::pair<std::string, NDArray>> named;
  for (const auto& [n, p] : collect_params_with_prefix()) named.emplace_back(n, p->reduce());
  io::save(path, named);
}

void Block::load_parameters(const std::string& path, const std::vector<Context>& ctx, bool allow_missing,
                            bool ignore_extra, bool cast_dtype) {
  io::NamedArrays file = io::load(path);
  bool structural = file.names.empty();
  for (const auto& n : file.names) structural = structural || n.find('.') != std::string::npos;
  if (!structural) {
    // Full names, as the older save_params and ParameterDict.save wrote them.
    collect_params().load(path, ctx, allow_missing, ignore_extra, prefix_, cast_dtype);
    return;
  }
  BRAID_CHECK(!file.names.empty() || file.arrays.empty(), "cannot load parameters from ", path,
              ": it holds unnamed arrays (saved with nd::save of a list)");
  std::vector<std::pair<std::string, NDArray>> loaded;
  for (size_t i = 0; i < file.arrays.size(); ++i) loaded.emplace_back(file.names[i], file.arrays[i]);
  load_into(collect_params_with_prefix(), loaded, path, ctx, allow_missing, ignore_extra, cast_dtype);
}

void Block::apply(const std::function<void(Block&)>& fn) {
  for (auto& [n, c] : children_) c->apply(fn);
  fn(*this);
}

void Block::cast(DType dtype) {
  for (auto& [n, c] : children_) c->cast(dtype);
  for (auto& [n, p] : reg_params_) p->cast(dtype);
}

void Block::hybridize(bool active, bool static_alloc, bool static_shape) {
  for (auto& [n, c] : children_) c->hybridize(active, static_alloc, static_shape);
}

void Block::register_op_hook(MonitorCallback callback, bool monitor_all) {
  for (auto& [n, c] : children_) c->register_op_hook(callback, monitor_all);
}

std::vector<NDArray> Block::operator()(const std::vector<NDArray>& inputs) {
  if (pre_hooks_.empty() && hooks_.empty()) return run(inputs);
  // Copies: a hook may remove itself (or others) while they are called.
  for (auto [id, hook] : std::map<int, ForwardPreHook>(pre_hooks_)) hook(*this, inputs);
  std::vector<NDArray> outputs = run(inputs);
  for (auto [id, hook] : std::map<int, ForwardHook>(hooks_)) hook(*this, inputs, outputs);
  return outputs;
}

int Block::add_forward_pre_hook(ForwardPreHook hook) {
  pre_hooks_.emplace(next_hook_id_, std::move(hook));
  return next_hook_id_++;
}

int Block::add_forward_hook(ForwardHook hook) {
  hooks_.emplace(next_hook_id_, std::move(hook));
  return next_hook_id_++;
}

void Block::remove_forward_hook(int id) {
  pre_hooks_.erase(id);
  hooks_.erase(id);
}

NDArray Block::operator()(const NDArray& x) {
  auto out = (*this)(std::vector<NDArray>{x});
  BRAID_CHECK(out.size() == 1, "block ", prefix_, " returned ", out.size(), " outputs; call it with a list");
  return out[0];
}

const NDArray& Block::one_input(const std::vector<NDArray>& inputs) const {
  BRAID_CHECK(inputs.size() == 1, "block ", prefix_, " takes one input but got ", inputs.size());
  return inputs[0];
}

std::string Block::describe() const { return hint_; }

std::string Block::repr() const {
  if (children_.empty()) return describe();
  std::string s = describe() + "(\n";
  for (const auto& [n, c] : children_) {
    std::string child = c->repr();
    for (size_t pos = 0; (pos = child.find('\n', pos)) != std::string::npos; pos += 3) child.replace(pos, 1, "\n  ");
    s += cat("  (", n, "): ", child, "\n");
  }
  return s + ")";
}

}  // namespace braid::gluon
