// The learning-rate schedulers against MXNet 1.x's formulas at chosen steps, their state
// (Factor/MultiFactor never go back, Poly/Cosine keep the last value), warm-up, errors, and the
// serialize round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "braid/optim/lr_scheduler.h"
#include "expect_error.h"

namespace braid::test {
namespace {

using optim::CosineScheduler;
using optim::FactorScheduler;
using optim::LRScheduler;
using optim::MultiFactorScheduler;
using optim::PolyScheduler;
using optim::Warmup;

TEST(LRScheduler, FactorDecaysEveryStepUpdatesDownToTheStop) {
  FactorScheduler s(3, 0.5, 0.1, 1.0);
  // base_lr * factor^k once num_update exceeds count + step; never below stop_factor_lr.
  std::vector<double> want{1, 1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.1, 0.1};
  for (int n = 0; n < static_cast<int>(want.size()); ++n) EXPECT_DOUBLE_EQ(s(n), want[n]) << "num_update " << n;
  EXPECT_DOUBLE_EQ(s(2), 0.1);  // stateful: an earlier num_update does not bring the rate back
}

TEST(LRScheduler, FactorJumpsSeveralStepsAtOnce) {
  FactorScheduler s(2, 0.5, 1e-8, 0.8);
  EXPECT_DOUBLE_EQ(s(7), 0.8 * 0.125);  // 7 > 2, 4, 6: three decays
}

TEST(LRScheduler, MultiFactorDecaysAfterEachListedStep) {
  MultiFactorScheduler s({2, 5}, 0.1, 1.0);
  std::vector<double> want{1, 1, 1, 0.1, 0.1, 0.1, 0.01, 0.01};
  for (int n = 0; n < static_cast<int>(want.size()); ++n) EXPECT_NEAR(s(n), want[n], 1e-15) << "num_update " << n;
}

TEST(LRScheduler, PolyDecaysToTheFinalRateThenStays) {
  PolyScheduler s(10, 1.0, 2, 0.1);
  EXPECT_DOUBLE_EQ(s(0), 1.0);
  EXPECT_DOUBLE_EQ(s(5), 0.1 + 0.9 * 0.25);
  EXPECT_DOUBLE_EQ(s(10), 0.1);
  EXPECT_DOUBLE_EQ(s(12), 0.1);
  PolyScheduler w(10, 1.0, 2, 0.1, Warmup{2, 0.0, "linear"});
  EXPECT_DOUBLE_EQ(w(1), 0.5);
  EXPECT_DOUBLE_EQ(w(2), 1.0);
  EXPECT_DOUBLE_EQ(w(6), 0.1 + 0.9 * 0.25);  // (1 - (6-2)/(10-2))^2
}

TEST(LRScheduler, CosineFollowsHalfACosine) {
  CosineScheduler s(10, 1.0, 0.2);
  EXPECT_DOUBLE_EQ(s(0), 1.0);
  EXPECT_DOUBLE_EQ(s(3), 0.2 + 0.8 * (1 + std::cos(std::numbers::pi * 0.3)) / 2);
  EXPECT_NEAR(s(5), 0.6, 1e-15);
  EXPECT_DOUBLE_EQ(s(10), 0.2);
  EXPECT_DOUBLE_EQ(s(11), 0.2);
}

TEST(LRScheduler, WarmupLinearAndConstant) {
  CosineScheduler lin(20, 1.0, 0.0, Warmup{4, 0.2, "linear"});
  EXPECT_DOUBLE_EQ(lin(0), 0.2);
  EXPECT_DOUBLE_EQ(lin(2), 0.2 + 0.8 * 2 / 4);
  EXPECT_DOUBLE_EQ(lin(4), 1.0);
  CosineScheduler cst(20, 1.0, 0.0, Warmup{4, 0.2, "constant"});
  EXPECT_DOUBLE_EQ(cst(3), 0.2);
  // MXNet counts Factor's steps from 0, not from the end of the warm-up.
  FactorScheduler f(3, 0.5, 1e-8, 1.0, Warmup{4, 0.0, "linear"});
  EXPECT_DOUBLE_EQ(f(1), 0.25);
  EXPECT_DOUBLE_EQ(f(4), 0.5);
}

TEST(LRScheduler, InvalidSettingsAreErrors) {
  expect_error([] { FactorScheduler(0); }, {"FactorScheduler", "step"});
  expect_error([] { FactorScheduler(2, 1.5); }, {"FactorScheduler", "factor 1.5"});
  expect_error([] { MultiFactorScheduler({3, 3}); }, {"MultiFactorScheduler", "increase"});
  expect_error([] { MultiFactorScheduler({}); }, {"MultiFactorScheduler", "no steps"});
  expect_error([] { PolyScheduler(0); }, {"PolyScheduler", "max_update"});
  expect_error([] { CosineScheduler(5, 0.1, 0, Warmup{5, 0.0, "linear"}); }, {"CosineScheduler", "warm-up"});
  expect_error([] { CosineScheduler(5, 0.1, 0, Warmup{1, 0.5, "linear"}); }, {"begin_lr", "base_lr"});
  expect_error([] { CosineScheduler(5, 0.1, 0, Warmup{1, 0.0, "cubic"}); }, {"cubic", "linear or constant"});
}

TEST(LRScheduler, SerializeContinuesFromTheStateReached) {
  std::vector<std::unique_ptr<LRScheduler>> all;
  all.push_back(std::make_unique<FactorScheduler>(2, 0.5, 0.01, 1.0, Warmup{1, 0.5, "linear"}));
  all.push_back(std::make_unique<MultiFactorScheduler>(std::vector<int>{2, 4, 7}, 0.3, 0.9));
  all.push_back(std::make_unique<PolyScheduler>(9, 0.7, 1.5, 0.05, Warmup{2, 0.1, "constant"}));
  all.push_back(std::make_unique<CosineScheduler>(9, 0.7, 0.05));
  for (auto& s : all) {
    for (int n = 0; n < 5; ++n) (*s)(n);
    auto copy = LRScheduler::deserialize(s->serialize());
    EXPECT_EQ(copy->type(), s->type());
    EXPECT_EQ(copy->serialize(), s->serialize());
    for (int n : {3, 5, 6, 9, 12}) EXPECT_DOUBLE_EQ((*copy)(n), (*s)(n)) << s->type() << " at " << n;
  }
  expect_error([] { LRScheduler::deserialize("{\"type\": \"step\"}"); }, {"lr scheduler"});
}

}  // namespace
}  // namespace braid::test
