#include "braid/gluon/trainer.h"

#include <algorithm>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/loss_watch.h"
#include "braid/io/file.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"

namespace braid::gluon {

Trainer::Trainer(const ParameterDict& params, const std::string& optimizer,
                 const std::map<std::string, std::string>& optimizer_params, KVStoreChoice kvstore,
                 std::optional<bool> update_on_kvstore)
    : kvstore_choice_(std::move(kvstore)), update_on_kvstore_choice_(update_on_kvstore) {
  auto opt_params = optimizer_params;
  if (auto it = opt_params.find("rescale_grad"); it != opt_params.end()) {
    scale_ = op::ParamReader({{"rescale_grad", it->second}}, "Trainer").get<double>("rescale_grad");
    opt_params.erase(it);
  }
  optimizer_ = optim::create(optimizer, opt_params);
  for (const auto& [name, p] : params) params_.push_back(p);
  init_optimizer();
}

Trainer::Trainer(const ParameterDict& params, std::shared_ptr<optim::Optimizer> optimizer, KVStoreChoice kvstore,
                 std::optional<bool> update_on_kvstore)
    : optimizer_(std::move(optimizer)),
      kvstore_choice_(std::move(kvstore)),
      update_on_kvstore_choice_(update_on_kvstore) {
  BRAID_CHECK(optimizer_, "Trainer: the optimizer is null");
  scale_ = optimizer_->rescale_grad();
  for (const auto& [name, p] : params) params_.push_back(p);
  init_optimizer();
}

void Trainer::init_optimizer() {
  std::map<int, std::string> idx2name;
  std::map<int, double> lr_mult, wd_mult;
  for (size_t i = 0; i < params_.size(); ++i) {
    const int idx = static_cast<int>(i);
    idx2name[idx] = params_[i]->name();
    if (params_[i]->lr_mult != 1.0) lr_mult[idx] = params_[i]->lr_mult;
    if (params_[i]->wd_mult != 1.0) wd_mult[idx] = params_[i]->wd_mult;
  }
  optimizer_->set_idx2name(idx2name);
  optimizer_->set_lr_mult({}, lr_mult);
  optimizer_->set_wd_mult({}, wd_mult);
}

// MXNet's Trainer._init_kvstore and model._create_kvstore, for dense parameters.
void Trainer::init_kvstore() {
  if (kv_initialized_) return;
  // A store given as an object updates only if it can run the optimizer (horovod cannot).
  kv::TrainingStore chosen{kvstore_choice_.store, kvstore_choice_.store && kv::update_on_kvstore_by_default() &&
                                                      kvstore_choice_.store->is_capable("optimizer")};
  if (!chosen.store) {
    const size_t contexts = params_.empty() || !params_[0]->initialized() ? 1 : params_[0]->list_ctx().size();
    int64_t largest = 0;
    for (const auto& p : params_) largest = std::max(largest, p->shape().size());
    chosen = kv::create_for_training(kvstore_choice_.name, contexts, largest);
    // Row_sparse weights are kept and updated by a store even on one context, as in MXNet.
    const bool sparse_weights = std::any_of(params_.begin(), params_.end(),
                                            [](const ParameterPtr& p) { return p->stype() != StorageType::Default; });
    if (!chosen.store && sparse_weights && !kvstore_choice_.name.empty() && kvstore_choice_.name != "None")
      chosen = {kv::create(kvstore_choice_.name), true};
  }
  kvstore_ = chosen.store;
  update_on_kvstore_ = kvstore_ && update_on_kvstore_choice_.value_or(chosen.update_on_kvstore);
  if (kvstore_) {
    if (update_on_kvstore_) kvstore_->set_optimizer(optimizer_);
    for (size_t i = 0; i < params_.size(); ++i) check_initialized(i);
    std::vector<kv::Key> keys;
    std::vector<NDArray> values;
    for (size_t i = 0; i < params_.size(); ++i) {
      keys.emplace_back(static_cast<int>(i));
      values.push_back(params_[i]->list_data()[0]);
    }
    kvstore_->init(keys, values);
    for (size_t i = 0; i < params_.size(); ++i)
      kvstore_->pull(static_cast<int>(i), params_[i]->list_data());  // every copy starts equal
  }
  kv_initialized_ = true;
}

std::shared_ptr<kv::KVStore> Trainer::kvstore() {
  init_kvstore();
  return kvstore_;
}

bool Trainer::update_on_kvstore() {
  init_kvstore();
  return update_on_kvstore_;
}

void Trainer::check_initialized(size_t i) const {
  const auto& p = params_[i];
  BRAID_CHECK(p->initialized(), "Trainer: Parameter '", p->name(), "' has not been initialized",
              p->deferred() ? " (its initialization waits for the first forward: run the model once before step)" : "");
}

bool Trainer::fresh(size_t i, bool ignore_stale_grad) const {
  const auto& p = params_[i];
  if (p->grad_req() == GradReq::Null) return false;
  check_initialized(i);
  bool fresh = true;
  for (const auto& d : p->list_data()) fresh = fresh && autograd::fresh_grad(d);
  BRAID_CHECK(fresh || ignore_stale_grad, "gradient of Parameter '", p->name(),
              "' has not been updated by backward "
              "since the last step; this could mean a bug in your model that made it use only a subset of its "
              "parameters in this iteration. If that is intended, call step with ignore_stale_grad=true to skip the "
              "parameters with stale gradients");
  return fresh;
}

void Trainer::step(int64_t batch_size, bool ignore_stale_grad) {
  BRAID_CHECK(batch_size > 0, "Trainer: batch_size must be positive, got ", batch_size);
  init_kvstore();
  if (!update_on_kvstore_) {
    allreduce_grads();
    if (stop_on_divergence_) check_finite_gradients();
    update(batch_size, ignore_stale_grad);
    return;
  }
  if (stop_on_divergence_) check_finite_gradients();
  autograd::PauseScope pause;
  optimizer_->set_rescale_grad(scale_ / static_cast<double>(batch_size));
  // Priority -i (MXNet's): of the exchanges ready together, the first layers' go first, as the
  // next forward needs their weights first. One list pushpull, so that a store may exchange a
  // run of adjacent small keys together (it then waits for the run's gradients together).
  std::vector<kv::Key> keys;
  std::vector<std::vector<NDArray>> grads, data;
  std::vector<int> priorities;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!fresh(i, ignore_stale_grad)) continue;
    const int key = static_cast<int>(i);
    if (params_[i]->stype() == StorageType::RowSparse) {
      kvstore_->push(key, params_[i]->list_grad(), -key);  // pulled by row_sparse_data
    } else {
      keys.emplace_back(key);
      grads.push_back(params_[i]->list_grad());
      data.push_back(params_[i]->list_data());
      priorities.push_back(-key);
    }
    for (const auto& d : params_[i]->list_data()) autograd::set_fresh_grad(d, false);
  }
  if (!keys.empty()) kvstore_->pushpull(keys, grads, data, priorities);
}

void Trainer::check_finite_gradients() const {
  autograd::PauseScope pause;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!fresh(i, true)) continue;
    for (const NDArray& g : params_[i]->list_grad()) {
      if (g.stype() != StorageType::Default || nd::invoke1("all_finite", {g}).scalar<float>() != 0) continue;
      throw Error(cat("Trainer.step: the gradient of '", params_[i]->name(),
                      "' holds NaN or infinite values, training has diverged. ",
                      divergence_advice(optimizer_->learning_rate(), kvstore_ ? kvstore_->type() : "",
                                        kvstore_ ? kvstore_->num_workers() : 1)));
    }
  }
}

bool Trainer::serves_rows(const Parameter& p) {
  if (p.stype() != StorageType::RowSparse) return false;
  if (!kv_initialized_ &&
      std::all_of(params_.begin(), params_.end(), [](const ParameterPtr& q) { return q->initialized(); }))
    init_kvstore();
  return kv_initialized_ && kvstore_ && update_on_kvstore_;
}

int Trainer::key_of(const Parameter& p) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].get() == &p) return static_cast<int>(i);
  throw Error(cat("Parameter '", p.name(), "' is not one of this Trainer's"));
}

void Trainer::pull_rows(const Parameter& p, const NDArray& out, const NDArray& row_id) {
  kvstore_->row_sparse_pull(key_of(p), {out}, {row_id});
}

void Trainer::pull_whole(const Parameter& p) { kvstore_->pull(key_of(p), p.list_data()); }

void Trainer::allreduce_grads() {
  init_kvstore();
  BRAID_CHECK(!update_on_kvstore_,
              "Trainer: allreduce_grads() is not supported when the kvstore updates the "
              "parameters; create the Trainer with update_on_kvstore=false, or call step()");
  autograd::PauseScope pause;
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& p = params_[i];
    if (p->grad_req() == GradReq::Null) continue;
    auto grads = p->list_grad();
    if (kvstore_) {
      const int key = static_cast<int>(i);
      kvstore_->pushpull(key, grads, grads, -key);
      continue;
    }
    kv::sum_in_every_context(grads);
  }
}

void Trainer::update(int64_t batch_size, bool ignore_stale_grad) {
  BRAID_CHECK(batch_size > 0, "Trainer: batch_size must be positive, got ", batch_size);
  init_kvstore();
  BRAID_CHECK(!update_on_kvstore_,
              "Trainer: update() is not supported when the kvstore updates the parameters; "
              "create the Trainer with update_on_kvstore=false, or call step()");
  autograd::PauseScope pause;
  optimizer_->set_rescale_grad(scale_ / static_cast<double>(batch_size));
  // Every copy got the same (summed) gradient: update the first and copy it to the others. All
  // at once, so that the optimizer can update many weights in one operation.
  std::vector<int> indices;
  std::vector<NDArray> weights, grads;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!fresh(i, ignore_stale_grad)) continue;
    indices.push_back(static_cast<int>(i));
    weights.push_back(params_[i]->list_data()[0]);
    grads.push_back(params_[i]->list_grad()[0]);
  }
  optimizer_->update(indices, weights, grads);
  for (int i : indices) {
    auto data = params_[static_cast<size_t>(i)]->list_data();
    for (size_t c = 1; c < data.size(); ++c) data[0].copyto(data[c]);
    for (const auto& d : data) autograd::set_fresh_grad(d, false);
  }
}

void Trainer::save_states(const std::string& path) const {
  if (update_on_kvstore_ && kvstore_)
    kvstore_->save_optimizer_states(path);  // the store runs the updates
  else
    io::write_file_atomically(path, optimizer_->save_states());
}

void Trainer::load_states(const std::string& path) {
  init_kvstore();
  if (update_on_kvstore_ && kvstore_)
    kvstore_->load_optimizer_states(path);
  else
    optimizer_->load_states(io::read_file(path, io::max_array_file_bytes()));
}

}  // namespace braid::gluon
