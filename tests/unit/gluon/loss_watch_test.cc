#include "braid/gluon/loss_watch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/trainer.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/reduce.h"

namespace braid::gluon {
namespace {

// The message of the braid::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A batch of 64 samples whose mean loss is `mean`.
void add_batch(LossWatch& watch, double mean) { watch.add(nd::array({static_cast<float>(mean * 64)}, Shape({1})), 64); }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

LossWatch::Options ten_classes() {
  LossWatch::Options o;
  o.classes = 10;
  o.learning_rate = 0.05;
  return o;
}

TEST(LossWatch, ALossThatBecomesNaNOrInfiniteStopsWithTheAdvice) {
  LossWatch watch(ten_classes());
  add_batch(watch, 2.1);
  EXPECT_EQ(error_of([&] { watch.check_finite(1, 1); }), "");
  add_batch(watch, kNaN);
  const std::string nan = error_of([&] { watch.check_finite(1, 2); });
  EXPECT_TRUE(has(nan, "epoch 1, batch 2: the training loss is NaN") && has(nan, "too high: try 0.005")) << nan;
  LossWatch other(ten_classes());
  add_batch(other, std::numeric_limits<double>::infinity());
  add_batch(other, 1.0);  // a finite batch after it: end_epoch still finds the first
  EXPECT_TRUE(has(error_of([&] { other.end_epoch(3); }), "epoch 3, batch 1: the training loss is infinite"));
}

TEST(LossWatch, ALossBackAtChanceOrAboveIsADivergence) {
  LossWatch watch(ten_classes());
  for (int i = 0; i < 60; ++i) add_batch(watch, i < 45 ? 1.5 : 2.33);  // fell, then came back to ln 10
  const std::string back = error_of([&] { watch.end_epoch(1); });
  EXPECT_TRUE(has(back,
                  "after epoch 1: the training loss (2.33 over the epoch's last 15 batches) has not left "
                  "chance level for 10 classes (ln 10 = 2.303)") &&
              has(back, "too high: try 0.005"))
      << back;
  LossWatch above(ten_classes());
  for (int i = 0; i < 60; ++i) add_batch(above, i < 10 ? 2.4 : 1500);
  const std::string blown = error_of([&] { above.end_epoch(1); });
  EXPECT_TRUE(has(blown, "(1500 over the epoch's last 15 batches) is above chance level") &&
              has(blown, "too high: try 0.005"))
      << blown;
}

TEST(LossWatch, ALossThatNeverMovedAsksForAHigherRate) {
  LossWatch watch(ten_classes());
  for (int i = 0; i < 60; ++i) add_batch(watch, 2.378);  // a random model's loss, above ln 10, unmoved
  const std::string flat = error_of([&] { watch.end_epoch(1); });
  EXPECT_TRUE(has(flat, "has not moved from where it started") && has(flat, "too low: try 0.5")) << flat;
}

TEST(LossWatch, ALearningLossOrTooFewBatchesIsLeftAlone) {
  LossWatch learning(ten_classes());
  for (int i = 0; i < 100; ++i) add_batch(learning, std::log(10.0) * (1 - i / 200.0));  // falls to 0.5 ln 10
  EXPECT_EQ(error_of([&] { learning.end_epoch(1); }), "");
  LossWatch early(ten_classes());
  for (int i = 0; i < 30; ++i) add_batch(early, 2.31);
  EXPECT_EQ(error_of([&] { early.end_epoch(1); }), "");  // 30 batches: too early to judge
  for (int i = 0; i < 30; ++i) add_batch(early, 2.31);
  EXPECT_TRUE(has(error_of([&] { early.end_epoch(2); }), "after epoch 2"));  // 60 in all
  LossWatch no_classes({});
  for (int i = 0; i < 60; ++i) add_batch(no_classes, 2.31);
  EXPECT_EQ(error_of([&] { no_classes.end_epoch(1); }), "");
}

TEST(LossWatch, TheAdviceDividesTheRateByTheAsynchronousWorkers) {
  const std::string async = divergence_advice(0.05, "dist_async", 8);
  EXPECT_TRUE(has(async, "try 0.00625 = 0.05 / 8") && has(async, "dist_sync")) << async;
  EXPECT_EQ(divergence_advice(0.05, "dist_async", 8, false), async);  // whether or not the loss moved
  const std::string sync = divergence_advice(0.05, "dist_sync", 8);
  EXPECT_TRUE(has(sync, "The learning rate (0.05) is likely too high: try 0.005")) << sync;
  EXPECT_EQ(divergence_advice(0.05, "", 1), sync);
}

TEST(LossWatch, TheTrainerStopsOnANonFiniteGradientOnRequest) {
  auto d = std::make_shared<nn::Dense>(1, nn::DenseOptions{.in_units = 2});
  d->initialize(nullptr, {cpu()});
  Trainer trainer(d->collect_params(), "sgd", {{"learning_rate", "0.1"}});
  auto backward_with = [&](float x) {
    NDArray loss;
    {
      autograd::RecordScope rec;
      loss = nd::sum((*d)(nd::array({x, 1}, Shape({1, 2}))));
    }
    loss.backward();
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  backward_with(nan);
  EXPECT_EQ(error_of([&] { trainer.step(1); }), "");  // off by default, as in MXNet
  EXPECT_TRUE(std::isnan(d->weight()->data().to_vector<float>()[0]));
  d->weight()->set_data(nd::array({1, 1}, Shape({1, 2})));
  trainer.set_stop_on_divergence(true);
  backward_with(2);
  EXPECT_EQ(error_of([&] { trainer.step(1); }), "");
  backward_with(nan);
  const std::string stopped = error_of([&] { trainer.step(1); });
  EXPECT_TRUE(has(stopped, "the gradient of '" + d->weight()->name() + "' holds NaN or infinite values") &&
              has(stopped, "try 0.01"))
      << stopped;
  EXPECT_FALSE(std::isnan(d->weight()->data().to_vector<float>()[0]));  // not updated with it
}

}  // namespace
}  // namespace braid::gluon
