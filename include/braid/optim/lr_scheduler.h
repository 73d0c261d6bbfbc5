#pragma once
/// Learning-rate schedulers with MXNet 1.x's semantics (python/mxnet/lr_scheduler.py), stateful
/// as there: FactorScheduler and MultiFactorScheduler keep the learning rate they reached and
/// only move forward, PolyScheduler and CosineScheduler keep the last value once past
/// max_update. An Optimizer calls operator() with its num_update (the largest per-weight update
/// count). Formulas: docs/optim.md.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace braid::optim {

/// Warm-up before a schedule starts: for num_update < steps the rate is begin_lr and then grows
/// linearly to base_lr ("linear"), or stays at begin_lr ("constant").
struct Warmup {
  int steps = 0;
  double begin_lr = 0;
  std::string mode = "linear";
};

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  /// The learning rate for `num_update`; may advance the scheduler's state.
  virtual double operator()(int num_update) = 0;
  /// "factor", "multifactor", "poly" or "cosine".
  virtual std::string type() const = 0;

  /// MXNet's base_lr: the current rate of Factor/MultiFactor schedules. An optimizer given an
  /// explicit learning_rate overwrites it (MXNet does the same; Poly and Cosine keep decaying
  /// from the base_lr they were built with).
  double base_lr() const { return base_lr_; }
  void set_base_lr(double lr) { base_lr_ = lr; }
  const Warmup& warmup() const { return warmup_; }
  /// The warm-up rate at num_update < warmup().steps.
  double warmup_lr(int num_update) const;

  /// JSON with the type, the parameters and the state reached; deserialize() continues from it.
  std::string serialize() const;
  static std::unique_ptr<LRScheduler> deserialize(const std::string& json);

 protected:
  /// Throws braid::Error for a negative step count, an unknown mode, or begin_lr > base_lr.
  LRScheduler(double base_lr, Warmup warmup);
  /// The subclass's parameters and state into `j` (serialize), and its state back (deserialize).
  virtual void save(nlohmann::json& j) const = 0;
  virtual void restore(const nlohmann::json& j) = 0;

  double base_lr_;
  Warmup warmup_;
  double warmup_final_lr_;  // base_lr at construction
};

/// base_lr * factor^k, k = the number of times num_update passed count + step (never below
/// stop_factor_lr).
class FactorScheduler : public LRScheduler {
 public:
  FactorScheduler(int step, double factor = 1, double stop_factor_lr = 1e-8, double base_lr = 0.01, Warmup warmup = {});
  double operator()(int num_update) override;
  std::string type() const override { return "factor"; }

 protected:
  void save(nlohmann::json& j) const override;
  void restore(const nlohmann::json& j) override;

 private:
  int step_;
  double factor_, stop_factor_lr_;
  int count_ = 0;
};

/// base_lr * factor^k, k = the number of steps[i] that num_update exceeded; steps increasing.
class MultiFactorScheduler : public LRScheduler {
 public:
  MultiFactorScheduler(std::vector<int> steps, double factor = 1, double base_lr = 0.01, Warmup warmup = {});
  double operator()(int num_update) override;
  std::string type() const override { return "multifactor"; }
  const std::vector<int>& steps() const { return steps_; }

 protected:
  void save(nlohmann::json& j) const override;
  void restore(const nlohmann::json& j) override;

 private:
  std::vector<int> steps_;
  double factor_;
  size_t cur_step_ind_ = 0;  // steps passed
};

/// Poly and Cosine: after the warm-up, final_lr + (base_lr - final_lr) * decay(p) with
/// p = (n - warmup) / (max_update - warmup) going from 0 to 1 at max_update; past max_update the
/// last value stays. base_lr here is the one given at construction (MXNet's base_lr_orig).
class DecayScheduler : public LRScheduler {
 public:
  double operator()(int num_update) override;

 protected:
  DecayScheduler(const char* who, int max_update, double base_lr, double final_lr, Warmup warmup);
  /// decay(0) = 1 and decay(1) = 0.
  virtual double decay(double p) const = 0;
  void save(nlohmann::json& j) const override;
  void restore(const nlohmann::json&) override {}

 private:
  int max_update_;
  double final_lr_, base_lr_orig_;
};

/// decay(p) = (1 - p)^pwr.
class PolyScheduler : public DecayScheduler {
 public:
  PolyScheduler(int max_update, double base_lr = 0.01, double pwr = 2, double final_lr = 0, Warmup warmup = {});
  std::string type() const override { return "poly"; }

 protected:
  double decay(double p) const override;
  void save(nlohmann::json& j) const override;

 private:
  double power_;
};

/// decay(p) = (1 + cos(pi * p)) / 2.
class CosineScheduler : public DecayScheduler {
 public:
  CosineScheduler(int max_update, double base_lr = 0.01, double final_lr = 0, Warmup warmup = {});
  std::string type() const override { return "cosine"; }

 protected:
  double decay(double p) const override;
};

}  // namespace braid::optim
