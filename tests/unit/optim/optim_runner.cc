#include "optim_runner.h"

#include <cmath>
#include <limits>

#include "braid/ndarray/creation.h"
#include "braid/optim/optimizer.h"

namespace braid::test {
namespace {

double fixed_value(int seed, int k) {
  double x = 1.5 * std::sin(12.9898 * seed + 78.233 * k + 0.5);
  return std::round(x * 256.0) / 256.0;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{Shape({3, 4}), Shape({4})};
  return s;
}

}  // namespace

std::vector<Values> initial_weights() {
  std::vector<Values> w;
  for (size_t p = 0; p < shapes().size(); ++p) {
    Values v(static_cast<size_t>(shapes()[p].size()));
    for (size_t k = 0; k < v.size(); ++k) v[k] = fixed_value(static_cast<int>(p) + 1, static_cast<int>(k));
    w.push_back(v);
  }
  return w;
}

std::vector<std::vector<Values>> gradients(int steps) {
  std::vector<std::vector<Values>> g(static_cast<size_t>(steps));
  for (int s = 0; s < steps; ++s)
    for (size_t p = 0; p < shapes().size(); ++p) {
      Values v(static_cast<size_t>(shapes()[p].size()));
      for (size_t k = 0; k < v.size(); ++k) v[k] = fixed_value(100 + 10 * s + static_cast<int>(p), static_cast<int>(k));
      g[static_cast<size_t>(s)].push_back(v);
    }
  return g;
}

BraidRun run_braid(const RunCase& c) {
  auto params = c.params;
  if (c.dtype == DType::Float16) params["multi_precision"] = "True";
  auto opt = optim::create(c.optimizer, params);
  opt->set_idx2name(c.idx2name);
  opt->set_lr_mult(c.lr_mult);
  opt->set_wd_mult(c.wd_mult);
  if (c.factor_scheduler) {
    const FactorSpec& f = *c.factor_scheduler;
    opt->set_lr_scheduler(std::make_shared<optim::FactorScheduler>(f.step, f.factor, f.stop_factor_lr, f.base_lr));
  }
  std::vector<NDArray> w;
  auto init = initial_weights();
  for (size_t p = 0; p < init.size(); ++p) w.push_back(nd::array(init[p], shapes()[p], cpu(), c.dtype));
  BraidRun run;
  for (const auto& step_grads : gradients(c.steps)) {
    for (size_t p = 0; p < w.size(); ++p)
      opt->update(static_cast<int>(p), w[p], nd::array(step_grads[p], shapes()[p], cpu(), c.dtype));
    std::vector<Values> now, masters;
    for (size_t p = 0; p < w.size(); ++p) {
      now.push_back(w[p].to_vector<double>());
      if (c.dtype == DType::Float16) masters.push_back(opt->master_weight(static_cast<int>(p)).to_vector<double>());
    }
    run.weights.push_back(now);
    if (c.dtype == DType::Float16) run.masters.push_back(masters);
  }
  return run;
}

nlohmann::json to_json(const RunCase& c) {
  nlohmann::json idx2name = nlohmann::json::object();
  for (const auto& [i, n] : c.idx2name) idx2name[std::to_string(i)] = n;
  nlohmann::json j{{"name", c.name},
                   {"optimizer", c.optimizer},
                   {"params", c.params},
                   {"idx2name", idx2name},
                   {"lr_mult", c.lr_mult},
                   {"wd_mult", c.wd_mult},
                   {"weights", initial_weights()},
                   {"grads", gradients(c.steps)}};
  if (c.factor_scheduler) {
    const FactorSpec& f = *c.factor_scheduler;
    j["factor_scheduler"] = {
        {"step", f.step}, {"factor", f.factor}, {"stop_factor_lr", f.stop_factor_lr}, {"base_lr", f.base_lr}};
  }
  return j;
}

double max_abs_diff(const Trajectory& a, const Trajectory& b) {
  const double inf = std::numeric_limits<double>::infinity();
  if (a.size() != b.size()) return inf;
  double m = 0;
  for (size_t s = 0; s < a.size(); ++s) {
    if (a[s].size() != b[s].size()) return inf;
    for (size_t p = 0; p < a[s].size(); ++p) {
      if (a[s][p].size() != b[s][p].size()) return inf;
      for (size_t k = 0; k < a[s][p].size(); ++k) {
        double d = std::abs(a[s][p][k] - b[s][p][k]);
        if (!(d <= m)) m = std::isnan(d) ? inf : d;
      }
    }
  }
  return m;
}

Trajectory from_json(const nlohmann::json& j) { return j.get<Trajectory>(); }

}  // namespace braid::test
