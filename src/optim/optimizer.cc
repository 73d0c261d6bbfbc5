// Optimizer: hyper-parameters, update counts, learning-rate and weight-decay multipliers, and
// the update itself (state creation, multi-precision, one fused operator).
#include "braid/optim/optimizer.h"

#include <iostream>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/base/suggest.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"

namespace braid::optim {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// MXNet's set_wd_mult: with names known, only *_weight and *_gamma decay by default.
double default_wd_mult(const std::string& name) {
  return ends_with(name, "_weight") || ends_with(name, "_gamma") ? 1.0 : 0.0;
}

// "(0.1, 0.05)": a tuple attribute.
std::string format_tuple(const std::vector<double>& values) {
  std::string out = "(";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + op::format_number(values[i]);
  return out + ")";
}

}  // namespace

Optimizer::Optimizer(std::string name, double default_learning_rate)
    : lr_(default_learning_rate), name_(std::move(name)) {
  declare("learning_rate", &lr_);
  declare("wd", &wd_);
  declare("rescale_grad", &rescale_grad_);
  declare("clip_gradient", &clip_gradient_);
  declare("multi_precision", &multi_precision_);
  declare("begin_num_update", &begin_num_update_);
}

void Optimizer::declare(const std::string& key, Field field) { fields_[key] = field; }

std::map<std::string, Optimizer::Field>::const_iterator Optimizer::find_field(const std::string& key) const {
  auto it = fields_.find(key);
  if (it == fields_.end()) {
    std::vector<std::string> known;
    for (const auto& [k, f] : fields_) known.push_back(k);
    throw Error(cat("optimizer ", name_, ": unknown parameter '", key, "'", did_you_mean(key, known), "; it accepts ",
                    comma_list(known)));
  }
  return it;
}

void Optimizer::set_param(const std::string& key, const std::string& value) {
  auto it = find_field(key);
  try {
    std::visit(
        [&](auto* p) {
          using T = std::remove_pointer_t<decltype(p)>;
          if constexpr (std::is_same_v<T, double>)
            *p = op::parse_float(value);
          else if constexpr (std::is_same_v<T, bool>)
            *p = op::parse_bool(value);
          else if constexpr (std::is_same_v<T, int>)
            *p = static_cast<int>(op::parse_int(value));
          else
            *p = value == "None" ? std::nullopt : std::optional<double>(op::parse_float(value));
        },
        it->second);
  } catch (const Error& e) {
    throw Error(cat("optimizer ", name_, ": parameter ", key, "=", value, ": ", e.what()));
  }
  if (key == "learning_rate") learning_rate_given_ = true;
  if (key == "begin_num_update" && update_counts_.empty()) num_update_ = begin_num_update_;
}

std::string Optimizer::param(const std::string& key) const {
  auto it = find_field(key);
  return std::visit(
      [](auto* p) -> std::string {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, double>)
          return op::format_number(*p);
        else if constexpr (std::is_same_v<T, bool>)
          return *p ? "True" : "False";
        else if constexpr (std::is_same_v<T, int>)
          return std::to_string(*p);
        else
          return *p ? op::format_number(**p) : "None";
      },
      it->second);
}

std::map<std::string, std::string> Optimizer::params() const {
  std::map<std::string, std::string> out;
  for (const auto& [k, f] : fields_) out[k] = param(k);
  return out;
}

double Optimizer::learning_rate() { return lr_scheduler_ ? (*lr_scheduler_)(num_update_) : lr_; }

void Optimizer::set_learning_rate(double lr) {
  BRAID_CHECK(!lr_scheduler_, "optimizer ", name_, ": set_learning_rate while an lr scheduler ", "(",
              lr_scheduler_->type(), ") decides the rate; change the scheduler's base_lr instead");
  lr_ = lr;
}

int Optimizer::update_count(int index) const {
  auto it = update_counts_.find(index);
  return it == update_counts_.end() ? 0 : it->second;
}

void Optimizer::set_lr_scheduler(std::shared_ptr<LRScheduler> s) {
  lr_scheduler_ = std::move(s);
  if (lr_scheduler_ && learning_rate_given_) lr_scheduler_->set_base_lr(lr_);
}

void Optimizer::set_idx2name(std::map<int, std::string> idx2name) { idx2name_ = std::move(idx2name); }

void Optimizer::set_lr_mult(std::map<std::string, double> by_name, std::map<int, double> by_index) {
  lr_mult_ = {std::move(by_name), std::move(by_index)};
}

void Optimizer::set_wd_mult(std::map<std::string, double> by_name, std::map<int, double> by_index) {
  wd_mult_ = {std::move(by_name), std::move(by_index)};
}

int Optimizer::multipliers_of(int index) const {
  auto it = aliases_.find(index);
  return it == aliases_.end() ? index : it->second;
}

double Optimizer::get_lr(int index) {
  index = multipliers_of(index);
  double lr = learning_rate();
  if (auto it = lr_mult_.by_index.find(index); it != lr_mult_.by_index.end()) return lr * it->second;
  if (auto n = idx2name_.find(index); n != idx2name_.end())
    if (auto m = lr_mult_.by_name.find(n->second); m != lr_mult_.by_name.end()) return lr * m->second;
  return lr;
}

double Optimizer::get_wd(int index) const {
  index = multipliers_of(index);
  if (auto it = wd_mult_.by_index.find(index); it != wd_mult_.by_index.end()) return wd_ * it->second;
  if (auto n = idx2name_.find(index); n != idx2name_.end()) {
    auto m = wd_mult_.by_name.find(n->second);
    return wd_ * (m != wd_mult_.by_name.end() ? m->second : default_wd_mult(n->second));
  }
  return wd_;
}

int Optimizer::count_update(int index) {
  auto [it, fresh] = update_counts_.try_emplace(index, begin_num_update_);
  int t = ++it->second;
  num_update_ = std::max(num_update_, t);
  return t;
}

std::vector<NDArray> Optimizer::create_state(int, const NDArray& weight) const {
  std::vector<NDArray> out;
  for (size_t k = 0; k < state_names().size(); ++k)
    out.push_back(nd::zeros(weight.shape(), weight.ctx(), weight.dtype()));
  return out;
}

bool Optimizer::uses_master_copy(const NDArray& weight) const {
  return multi_precision_ && weight.dtype() == DType::Float16;
}

Optimizer::State& Optimizer::state_for(int index, const NDArray& weight) {
  const bool mp = uses_master_copy(weight);
  auto it = states_.find(index);
  if (it == states_.end()) {
    State st;
    if (mp) st.weight32 = weight.astype(DType::Float32);
    st.arrays = create_state(index, mp ? st.weight32 : weight);
    BRAID_CHECK(st.arrays.size() == state_names().size(), "optimizer ", name_, ": create_state gave ", st.arrays.size(),
                " arrays for the ", state_names().size(), " state names; return one array per name");
    return states_[index] = std::move(st);
  }
  State& st = it->second;
  if (mp && st.weight32.is_none()) st.weight32 = weight.astype(DType::Float32);
  auto follow = [&](NDArray& a) {
    BRAID_CHECK(a.shape() == weight.shape(), "optimizer ", name_, ": the state of index ", index, " has shape ",
                a.shape(), " but the weight has ", weight.shape(), "; use one index per parameter");
    a = a.as_in_context(weight.ctx());  // states loaded on the cpu follow their weight
  };
  for (auto& a : st.arrays) follow(a);
  if (!st.weight32.is_none()) follow(st.weight32);
  return st;
}

const std::vector<NDArray>& Optimizer::state(int index) const {
  auto it = states_.find(index);
  BRAID_CHECK(it != states_.end(), "optimizer ", name_, ": index ", index, " has no state yet; it is ",
              "created by its first update");
  return it->second.arrays;
}

NDArray Optimizer::master_weight(int index) const {
  auto it = states_.find(index);
  return it == states_.end() ? NDArray() : it->second.weight32;
}

op::AttrMap Optimizer::common_attrs(const UpdateStep& s) const {
  op::AttrMap a{{"lr", op::format_number(s.lr)},
                {"wd", op::format_number(s.wd)},
                {"rescale_grad", op::format_number(rescale_grad_)}};
  if (clip_gradient_ && *clip_gradient_ != 0) a["clip_gradient"] = op::format_number(*clip_gradient_);
  return a;
}

void Optimizer::step(const UpdateStep&) {
  throw Error(cat("optimizer ", name_, " implements neither fused_op nor step; override one of them"));
}

UpdateStep Optimizer::begin_update(int index, const NDArray& weight, const NDArray& grad) {
  BRAID_CHECK(!weight.is_none() && !grad.is_none(), "optimizer ", name_, ": index ", index,
              " was given a None weight or gradient");
  BRAID_CHECK(weight.shape() == grad.shape(), "optimizer ", name_, ": weight ", index, " has shape ", weight.shape(),
              " but its gradient ", grad.shape());
  if (weight.dtype() == DType::Float16 && !multi_precision_ && !warned_float16_) {
    warned_float16_ = true;  // MXNet's warning: the update still runs, in float16
    std::cerr << "optimizer " << name_ << ": accumulating with float16 in the optimizer can lead to poor accuracy "
              << "or slow convergence; consider multi_precision=True\n";
  }
  State& st = state_for(index, weight);
  UpdateStep s{index, weight, grad, st.arrays, st.weight32, 0, 0, 0};
  s.t = count_update(index);
  s.lr = get_lr(index);
  s.wd = get_wd(index);
  return s;
}

void Optimizer::apply(const UpdateStep& s) {
  const bool mp = uses_master_copy(s.weight);
  std::string op = fused_op(mp);
  if (!op.empty()) {
    std::vector<NDArray> inputs{s.weight, s.grad};
    inputs.insert(inputs.end(), s.states.begin(), s.states.end());
    if (mp) inputs.push_back(s.weight32);
    nd::invoke(op, inputs, fused_attrs(s), {s.weight});
  } else if (mp) {
    UpdateStep m = s;
    m.weight = s.weight32;
    m.grad = s.grad.astype(DType::Float32);
    m.weight32 = NDArray();
    step(m);
    s.weight32.copyto(s.weight);
  } else {
    step(s);
  }
}

void Optimizer::update(int index, NDArray weight, const NDArray& grad) { apply(begin_update(index, weight, grad)); }

int Optimizer::aggregation_size() {
  return static_cast<int>(std::max(1LL, env_int({"MXNET_OPTIMIZER_AGGREGATION_SIZE"}, 60)));
}

void Optimizer::apply_aggregated(const std::vector<UpdateStep>& steps) {
  if (steps.size() == 1) return apply(steps[0]);
  const bool mp = uses_master_copy(steps[0].weight);
  op::AttrMap attrs = fused_attrs(steps[0]);
  attrs.erase("lr");
  attrs.erase("wd");
  std::vector<double> lrs, wds;
  std::vector<NDArray> inputs, outputs;
  for (const UpdateStep& s : steps) {
    lrs.push_back(s.lr);
    wds.push_back(s.wd);
    inputs.push_back(s.weight);
    inputs.push_back(s.grad);
    inputs.insert(inputs.end(), s.states.begin(), s.states.end());
    if (mp) inputs.push_back(s.weight32);
    outputs.push_back(s.weight);
  }
  attrs["lrs"] = format_tuple(lrs);
  attrs["wds"] = format_tuple(wds);
  attrs["num_weights"] = std::to_string(steps.size());
  nd::invoke(aggregated_op(mp), inputs, attrs, outputs);
}

void Optimizer::update(const std::vector<int>& indices, const std::vector<NDArray>& weights,
                       const std::vector<NDArray>& grads) {
  BRAID_CHECK(indices.size() == weights.size() && weights.size() == grads.size(), "optimizer ", name_, ": ",
              indices.size(), " indices, ", weights.size(), " weights and ", grads.size(),
              " gradients; give one weight and one gradient per index");
  const size_t most = static_cast<size_t>(aggregation_size());
  std::vector<UpdateStep> batch;  // of one context and dtype
  for (size_t i = 0; i < indices.size(); ++i) {
    UpdateStep s = begin_update(indices[i], weights[i], grads[i]);
    // Compressed arrays are updated alone: the multi-weight operators are dense (and not lazy).
    if (aggregated_op(uses_master_copy(s.weight)).empty() || s.grad.is_sparse() || s.weight.is_sparse()) {
      apply(s);
      continue;
    }
    if (!batch.empty() && (batch.size() == most || batch[0].weight.ctx() != s.weight.ctx() ||
                           batch[0].weight.dtype() != s.weight.dtype())) {
      apply_aggregated(batch);
      batch.clear();
    }
    batch.push_back(std::move(s));
  }
  if (!batch.empty()) apply_aggregated(batch);
}

}  // namespace braid::optim
