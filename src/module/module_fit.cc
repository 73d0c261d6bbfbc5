// Module's loops over data iterators: fit, score, predict.
#include <chrono>
#include <iostream>

#include "braid/base/error.h"
#include "braid/module/module.h"
#include "braid/ndarray/matrix.h"

namespace braid::mod {
namespace {

/// The first `n - pad` rows of each array.
std::vector<NDArray> unpadded(const std::vector<NDArray>& arrays, int pad) {
  std::vector<NDArray> out;
  for (const auto& a : arrays) out.push_back(pad > 0 ? a.slice(0, a.shape()[0] - pad) : a);
  return out;
}

/// The whole epoch's value: Speedometer's auto_reset only resets the local one (MXNet's
/// get_global_name_value).
void log_metric(int epoch, const char* kind, const metric::EvalMetric& metric) {
  auto v = metric.get_global();
  for (size_t i = 0; i < v.names.size(); ++i)
    std::cerr << "Epoch[" << epoch << "] " << kind << "-" << v.names[i] << "=" << v.values[i] << "\n";
}

}  // namespace

void Module::fit(io::DataIter& train_data, const FitOptions& o) {
  bind(train_data.provide_data(), train_data.provide_label(), true, false, o.force_rebind);
  init_params(o.initializer, o.arg_params, o.aux_params, o.allow_missing, o.force_init);
  init_optimizer(o.kvstore, o.optimizer, o.optimizer_params);
  // A name makes a new metric each time; an object is the one metric of training and validation.
  auto make_metric = [&o] {
    const auto* name = std::get_if<std::string>(&o.eval_metric);
    return name ? metric::create(*name) : std::get<metric::MetricPtr>(o.eval_metric);
  };
  auto metric = make_metric();
  for (int epoch = o.begin_epoch; epoch < o.num_epoch; ++epoch) {
    auto tic = std::chrono::steady_clock::now();
    metric->reset();
    train_data.reset();
    int nbatch = 0;
    while (auto batch = train_data.next()) {
      forward(*batch, true);
      backward();
      update();
      update_metric(*metric, batch->label);
      for (const auto& cb : o.batch_end_callback) cb(BatchEndParam{epoch, nbatch, metric.get()});
      ++nbatch;
    }
    log_metric(epoch, "Train", *metric);
    std::cerr << "Epoch[" << epoch
              << "] Time cost=" << std::chrono::duration<double>(std::chrono::steady_clock::now() - tic).count()
              << "\n";
    if (!o.epoch_end_callback.empty()) {
      auto [arg, aux] = get_params();
      for (const auto& cb : o.epoch_end_callback) cb(epoch, symbol_, arg, aux);
    }
    if (o.eval_data) {
      auto val = make_metric();
      score(*o.eval_data, *val);
      log_metric(epoch, "Validation", *val);
    }
  }
}

double Module::score(io::DataIter& eval_data, metric::EvalMetric& metric, int num_batch) {
  BRAID_CHECK(binded() && params_initialized_, "Module::score: call bind and init_params first");
  metric.reset();
  eval_data.reset();
  for (int n = 0; num_batch == 0 || n < num_batch; ++n) {
    auto batch = eval_data.next();
    if (!batch) break;
    forward(*batch, false);
    metric.update(unpadded(batch->label, batch->pad), unpadded(get_outputs(), batch->pad));
  }
  auto v = metric.get();
  return v.values.empty() ? 0.0 : v.values[0];
}

std::vector<NDArray> Module::predict(io::DataIter& eval_data, int num_batch) {
  BRAID_CHECK(binded() && params_initialized_, "Module::predict: call bind and init_params first");
  eval_data.reset();
  std::vector<std::vector<NDArray>> parts;
  for (int n = 0; num_batch == 0 || n < num_batch; ++n) {
    auto batch = eval_data.next();
    if (!batch) break;
    forward(*batch, false);
    auto outs = unpadded(get_outputs(), batch->pad);
    parts.resize(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) parts[i].push_back(outs[i].copy());
  }
  std::vector<NDArray> merged;
  for (const auto& p : parts) merged.push_back(p.size() == 1 ? p[0] : nd::concat(p, 0));
  return merged;
}

}  // namespace braid::mod
