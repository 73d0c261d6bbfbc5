#include "braid/gluon/trainer.h"

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/op/param_reader.h"

namespace braid::gluon {

Trainer::Trainer(const ParameterDict& params, const std::string& optimizer,
                 const std::map<std::string, std::string>& optimizer_params, const std::string& kvstore)
    : kvstore_(kvstore) {
  auto opt_params = optimizer_params;
  if (auto it = opt_params.find("rescale_grad"); it != opt_params.end()) {
    scale_ = op::ParamReader({{"rescale_grad", it->second}}, "Trainer").get<double>("rescale_grad");
    opt_params.erase(it);
  }
  optimizer_ = optim::create(optimizer, opt_params);
  for (const auto& [name, p] : params) params_.push_back(p);
  init_optimizer();
}

Trainer::Trainer(const ParameterDict& params, std::shared_ptr<optim::Optimizer> optimizer, const std::string& kvstore)
    : optimizer_(std::move(optimizer)), kvstore_(kvstore) {
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

void Trainer::step(int64_t batch_size, bool ignore_stale_grad) {
  allreduce_grads();
  update(batch_size, ignore_stale_grad);
}

void Trainer::allreduce_grads() {
  autograd::PauseScope pause;
  for (const auto& p : params_) {
    if (p->grad_req() == GradReq::Null || !p->initialized()) continue;
    auto grads = p->list_grad();
    if (grads.size() < 2) continue;
    NDArray sum = grads[0].copy();
    for (size_t i = 1; i < grads.size(); ++i) sum += grads[i].as_in_context(sum.ctx());
    for (auto& g : grads) sum.copyto(g);
  }
}

void Trainer::update(int64_t batch_size, bool ignore_stale_grad) {
  BRAID_CHECK(batch_size > 0, "Trainer: batch_size must be positive, got ", batch_size);
  autograd::PauseScope pause;
  optimizer_->set_rescale_grad(scale_ / static_cast<double>(batch_size));
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& p = params_[i];
    if (p->grad_req() == GradReq::Null) continue;
    BRAID_CHECK(p->initialized(), "Trainer: Parameter '", p->name(), "' has not been initialized",
                p->deferred() ? " (its initialization waits for the first forward: run the model once before step)"
                              : "");
    auto data = p->list_data();
    bool fresh = true;
    for (const auto& d : data) fresh = fresh && autograd::fresh_grad(d);
    if (!fresh) {
      BRAID_CHECK(ignore_stale_grad, "gradient of Parameter '", p->name(), "' has not been updated by backward since "
                  "the last step; this could mean a bug in your model that made it use only a subset of its "
                  "parameters in this iteration. If that is intended, call step with ignore_stale_grad=true to "
                  "skip the parameters with stale gradients");
      continue;
    }
    // Every copy got the same (summed) gradient: update the first and copy it to the others.
    optimizer_->update(static_cast<int>(i), data[0], p->list_grad()[0]);
    for (size_t c = 1; c < data.size(); ++c) data[0].copyto(data[c]);
    for (const auto& d : data) autograd::set_fresh_grad(d, false);
  }
}

void Trainer::save_states(const std::string& path) const {
  io::write_file_atomically(path, optimizer_->save_states());
}

void Trainer::load_states(const std::string& path) { optimizer_->load_states(io::read_file(path)); }

}  // namespace braid::gluon
