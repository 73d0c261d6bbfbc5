#include "braid/optim/lr_scheduler.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "braid/base/error.h"
#include "braid/io/json_limits.h"

namespace braid::optim {

using nlohmann::json;

LRScheduler::LRScheduler(double base_lr, Warmup warmup)
    : base_lr_(base_lr), warmup_(std::move(warmup)), warmup_final_lr_(base_lr) {
  BRAID_CHECK(warmup_.steps >= 0, "lr scheduler: warmup steps is ", warmup_.steps, "; use 0 (no warm-up) or more");
  BRAID_CHECK(warmup_.mode == "linear" || warmup_.mode == "constant", "lr scheduler: warmup mode '", warmup_.mode,
              "' is unknown; use linear or constant");
  BRAID_CHECK(warmup_.begin_lr <= base_lr, "lr scheduler: warmup begin_lr ", warmup_.begin_lr, " is above base_lr ",
              base_lr, "; warm-up raises the rate up to base_lr");
}

double LRScheduler::warmup_lr(int num_update) const {
  BRAID_CHECK(num_update < warmup_.steps, "lr scheduler: warmup_lr(", num_update, ") asked past the ", warmup_.steps,
              " warm-up steps");
  if (warmup_.mode == "constant") return warmup_.begin_lr;
  return warmup_.begin_lr +
         (warmup_final_lr_ - warmup_.begin_lr) * static_cast<double>(num_update) / static_cast<double>(warmup_.steps);
}

std::string LRScheduler::serialize() const {
  json j{{"type", type()},
         {"base_lr", base_lr_},
         {"warmup_final_lr", warmup_final_lr_},
         {"warmup", {{"steps", warmup_.steps}, {"begin_lr", warmup_.begin_lr}, {"mode", warmup_.mode}}}};
  save(j);
  return j.dump();
}

std::unique_ptr<LRScheduler> LRScheduler::deserialize(const std::string& text) {
  try {
    json j = io::parse_json(text, "lr scheduler JSON");
    Warmup w{j.at("warmup").at("steps").get<int>(), j.at("warmup").at("begin_lr").get<double>(),
             j.at("warmup").at("mode").get<std::string>()};
    double lr0 = j.at("warmup_final_lr").get<double>();  // base_lr at construction
    std::string type = j.at("type").get<std::string>();
    std::unique_ptr<LRScheduler> s;
    if (type == "factor")
      s = std::make_unique<FactorScheduler>(j.at("step").get<int>(), j.at("factor").get<double>(),
                                            j.at("stop_factor_lr").get<double>(), lr0, w);
    else if (type == "multifactor")
      s = std::make_unique<MultiFactorScheduler>(j.at("steps").get<std::vector<int>>(), j.at("factor").get<double>(),
                                                 lr0, w);
    else if (type == "poly")
      s = std::make_unique<PolyScheduler>(j.at("max_update").get<int>(), lr0, j.at("pwr").get<double>(),
                                          j.at("final_lr").get<double>(), w);
    else if (type == "cosine")
      s = std::make_unique<CosineScheduler>(j.at("max_update").get<int>(), lr0, j.at("final_lr").get<double>(), w);
    else
      throw Error(cat("lr scheduler type '", type, "' is unknown; expected factor, multifactor, poly or cosine"));
    s->restore(j);
    s->base_lr_ = j.at("base_lr").get<double>();
    return s;
  } catch (const json::exception& e) {
    throw Error(
        cat("cannot read an lr scheduler description (", e.what(), "); pass the text LRScheduler::serialize() wrote"));
  }
}

FactorScheduler::FactorScheduler(int step, double factor, double stop_factor_lr, double base_lr, Warmup warmup)
    : LRScheduler(base_lr, std::move(warmup)), step_(step), factor_(factor), stop_factor_lr_(stop_factor_lr) {
  BRAID_CHECK(step >= 1, "FactorScheduler: step is ", step, "; the rate changes every step >= 1 updates");
  BRAID_CHECK(factor <= 1.0, "FactorScheduler: factor ", factor, " is above 1; the rate must decrease");
}

double FactorScheduler::operator()(int num_update) {
  if (num_update < warmup_.steps) return warmup_lr(num_update);
  while (num_update > count_ + step_) {
    count_ += step_;
    base_lr_ = std::max(base_lr_ * factor_, stop_factor_lr_);
  }
  return base_lr_;
}

void FactorScheduler::save(json& j) const {
  j.update({{"step", step_}, {"factor", factor_}, {"stop_factor_lr", stop_factor_lr_}, {"count", count_}});
}
void FactorScheduler::restore(const json& j) { count_ = j.at("count").get<int>(); }

MultiFactorScheduler::MultiFactorScheduler(std::vector<int> steps, double factor, double base_lr, Warmup warmup)
    : LRScheduler(base_lr, std::move(warmup)), steps_(std::move(steps)), factor_(factor) {
  BRAID_CHECK(!steps_.empty(), "MultiFactorScheduler: no steps given; pass the updates at which to decay");
  for (size_t i = 0; i < steps_.size(); ++i) {
    BRAID_CHECK(steps_[i] >= 1, "MultiFactorScheduler: step ", steps_[i], " must be at least 1");
    BRAID_CHECK(i == 0 || steps_[i] > steps_[i - 1], "MultiFactorScheduler: steps must increase, but ", steps_[i],
                " follows ", steps_[i - 1]);
  }
  BRAID_CHECK(factor <= 1.0, "MultiFactorScheduler: factor ", factor, " is above 1; the rate must decrease");
}

double MultiFactorScheduler::operator()(int num_update) {
  if (num_update < warmup_.steps) return warmup_lr(num_update);
  while (cur_step_ind_ < steps_.size() && num_update > steps_[cur_step_ind_]) {
    ++cur_step_ind_;
    base_lr_ *= factor_;
  }
  return base_lr_;
}

void MultiFactorScheduler::save(json& j) const {
  j.update({{"steps", steps_}, {"factor", factor_}, {"cur_step_ind", cur_step_ind_}});
}
void MultiFactorScheduler::restore(const json& j) { cur_step_ind_ = j.at("cur_step_ind").get<size_t>(); }

DecayScheduler::DecayScheduler(const char* who, int max_update, double base_lr, double final_lr, Warmup warmup)
    : LRScheduler(base_lr, std::move(warmup)), max_update_(max_update), final_lr_(final_lr), base_lr_orig_(base_lr) {
  BRAID_CHECK(max_update >= 1, who, ": max_update is ", max_update, "; it must be at least 1");
  BRAID_CHECK(max_update > warmup_.steps, who, ": max_update ", max_update, " must exceed the ", warmup_.steps,
              " warm-up steps (the decay runs between them)");
}

double DecayScheduler::operator()(int num_update) {
  if (num_update < warmup_.steps) return warmup_lr(num_update);
  if (num_update <= max_update_) {
    double p = static_cast<double>(num_update - warmup_.steps) / static_cast<double>(max_update_ - warmup_.steps);
    base_lr_ = final_lr_ + (base_lr_orig_ - final_lr_) * decay(p);
  }
  return base_lr_;
}

void DecayScheduler::save(json& j) const { j.update({{"max_update", max_update_}, {"final_lr", final_lr_}}); }

PolyScheduler::PolyScheduler(int max_update, double base_lr, double pwr, double final_lr, Warmup warmup)
    : DecayScheduler("PolyScheduler", max_update, base_lr, final_lr, std::move(warmup)), power_(pwr) {}

double PolyScheduler::decay(double p) const { return std::pow(1.0 - p, power_); }

void PolyScheduler::save(json& j) const {
  DecayScheduler::save(j);
  j["pwr"] = power_;
}

CosineScheduler::CosineScheduler(int max_update, double base_lr, double final_lr, Warmup warmup)
    : DecayScheduler("CosineScheduler", max_update, base_lr, final_lr, std::move(warmup)) {}

double CosineScheduler::decay(double p) const { return (1 + std::cos(std::numbers::pi * p)) / 2; }

}  // namespace braid::optim
