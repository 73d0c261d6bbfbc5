// metric: values against hand computation (MXNet 1.x's documented examples included).
#include <gtest/gtest.h>

#include <cmath>

#include "braid/metric/metric.h"
#include "braid/ndarray/creation.h"

namespace braid::test::metric_tests {
namespace {

using namespace metric;

// MXNet's documentation example: three samples of two classes.
NDArray probs() { return nd::array({0.3f, 0.7f, 0.f, 1.f, 0.4f, 0.6f}, Shape({3, 2})); }
NDArray labels() { return nd::array({0.f, 1.f, 1.f}); }

void expect_message(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    FAIL() << "expected an error containing '" << part << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Accuracy, ScoresAndClassIndices) {
  Accuracy acc;
  EXPECT_TRUE(std::isnan(acc.get().value()));
  acc.update({labels()}, {probs()});
  EXPECT_EQ(acc.get().name(), "accuracy");
  EXPECT_DOUBLE_EQ(acc.get().value(), 2.0 / 3.0);
  // Predictions shaped like the labels are classes already (truncated to int32: 1.9 is 1).
  acc.update({nd::array({1.f, 1.f})}, {nd::array({1.9f, 0.f})});
  EXPECT_DOUBLE_EQ(acc.get().value(), 3.0 / 5.0);
  EXPECT_EQ(acc.num_inst, 5);
  EXPECT_DOUBLE_EQ(acc.sum_metric, 3.0);
  expect_message([&] { acc.update({labels(), labels()}, {probs()}); }, "2 label arrays but 1 prediction");
  expect_message([&] { acc.update({nd::array({1.f, 0.f})}, {probs()}); }, "2 labels");
}

TEST(Accuracy, ClassAxis) {
  // (1, 2, 3) scores with classes on the last axis; labels (1, 2).
  Accuracy acc(-1);
  acc.update({nd::array({2.f, 0.f}, Shape({1, 2}))}, {nd::array({0.f, 1.f, 5.f, 3.f, 2.f, 1.f}, Shape({1, 2, 3}))});
  EXPECT_DOUBLE_EQ(acc.get().value(), 1.0);
}

TEST(Accuracy, ResetLocalKeepsGlobal) {
  Accuracy acc;
  acc.update({labels()}, {probs()});
  acc.reset_local();
  EXPECT_TRUE(std::isnan(acc.get().value()));
  EXPECT_DOUBLE_EQ(acc.get_global().value(), 2.0 / 3.0);
  acc.reset();
  EXPECT_TRUE(std::isnan(acc.get_global().value()));
}

TEST(TopKAccuracy, LabelAmongTheKBest) {
  NDArray p = nd::array({0.1f, 0.5f, 0.4f, 0.0f, 0.9f, 0.05f, 0.03f, 0.02f, 0.2f, 0.2f, 0.3f, 0.3f}, Shape({3, 4}));
  NDArray l = nd::array({2.f, 3.f, 1.f});
  TopKAccuracy top2(2);
  top2.update({l}, {p});
  EXPECT_EQ(top2.get().name(), "top_k_accuracy_2");
  // Row 0: {1, 2} holds 2. Row 1: {0, 1} misses 3. Row 2: 0.3, 0.3 rank before 1's 0.2.
  EXPECT_DOUBLE_EQ(top2.get().value(), 1.0 / 3.0);
  TopKAccuracy top5(5);  // more than the 4 classes: every valid label counts
  top5.update({l}, {p});
  EXPECT_DOUBLE_EQ(top5.get().value(), 1.0);
  EXPECT_THROW(TopKAccuracy(1), Error);
}

TEST(CrossEntropy, MeanNegativeLogOfTheLabelsProbability) {
  CrossEntropy ce;
  ce.update({labels()}, {probs()});
  const double eps = 1e-12;
  double expect = -(std::log(0.3f + eps) + std::log(1.0 + eps) + std::log(0.6f + eps)) / 3.0;
  EXPECT_DOUBLE_EQ(ce.get().value(), expect);
  EXPECT_NEAR(ce.get().value(), 0.57159948, 1e-7);  // MXNet's documented value
  EXPECT_EQ(ce.get().name(), "cross-entropy");
  expect_message([&] { ce.update({nd::array({0.f, 2.f, 1.f})}, {probs()}); }, "not a class index");
}

TEST(Regression, MeanOfBatchMeans) {
  // MXNet's documented example, then a 1-D batch.
  NDArray p1 = nd::array({3.f, -0.5f, 2.f, 7.f}, Shape({4, 1})), l1 = nd::array({2.5f, 0.f, 2.f, 8.f}, Shape({4, 1}));
  NDArray p2 = nd::array({1.f, 2.f}), l2 = nd::array({0.f, 0.f});
  MAE mae;
  MSE mse;
  RMSE rmse;
  for (EvalMetric* m : std::vector<EvalMetric*>{&mae, &mse, &rmse}) m->update({l1}, {p1});
  EXPECT_DOUBLE_EQ(mae.get().value(), 0.5);
  EXPECT_DOUBLE_EQ(mse.get().value(), 0.375);
  EXPECT_DOUBLE_EQ(rmse.get().value(), std::sqrt(0.375));
  for (EvalMetric* m : std::vector<EvalMetric*>{&mae, &mse, &rmse}) m->update({l2}, {p2});
  EXPECT_DOUBLE_EQ(mae.get().value(), (0.5 + 1.5) / 2);
  EXPECT_DOUBLE_EQ(mse.get().value(), (0.375 + 2.5) / 2);
  EXPECT_DOUBLE_EQ(rmse.get().value(), (std::sqrt(0.375) + std::sqrt(2.5)) / 2);
  EXPECT_EQ(mse.num_inst, 2);
  // (n,) and (n, 1) agree; (n, 2) does not.
  mse.update({nd::array({1.f, 2.f})}, {nd::array({1.f, 2.f}, Shape({2, 1}))});
  expect_message([&] { mse.update({nd::array({1.f, 2.f})}, {nd::zeros(Shape({2, 2}))}); }, "differ");
}

TEST(F1, MacroAveragesUpdatesMicroPoolsThem) {
  NDArray p2 = nd::array({0.9f, 0.1f, 0.2f, 0.8f}, Shape({2, 2})), l2 = nd::array({1.f, 1.f});
  F1 macro, micro("micro");
  macro.update({labels()}, {probs()});
  EXPECT_DOUBLE_EQ(macro.get().value(), 0.8);  // MXNet's documented value: p = 2/3, r = 1
  macro.update({l2}, {p2});                    // p = 1, r = 1/2: F1 = 2/3
  EXPECT_DOUBLE_EQ(macro.get().value(), (0.8 + 2.0 / 3.0) / 2);
  micro.update({labels()}, {probs()});
  micro.update({l2}, {p2});  // tp 3, fp 1, fn 1: p = r = 3/4
  EXPECT_DOUBLE_EQ(micro.get().value(), 0.75);
  EXPECT_EQ(micro.num_inst, 5);
  expect_message([&] { macro.update({nd::array({0.f, 1.f, 2.f})}, {probs()}); }, "binary");
  EXPECT_THROW(F1("weighted"), Error);
  micro.reset();
  EXPECT_TRUE(std::isnan(micro.get().value()));
}

TEST(Loss, MeanOfEveryValue) {
  Loss loss;
  loss.update({}, {nd::array({1.f, 2.f, 3.f}), nd::array({4.f, 5.f}, Shape({2, 1}))});
  EXPECT_DOUBLE_EQ(loss.get().value(), 3.0);
  EXPECT_EQ(loss.num_inst, 5);
}

TEST(Composite, ListsEveryChild) {
  CompositeEvalMetric c;
  c.add(std::make_shared<Accuracy>());
  c.add(std::make_shared<F1>());
  c.update({labels()}, {probs()});
  MetricValue v = c.get();
  EXPECT_EQ(v.names, (std::vector<std::string>{"accuracy", "f1"}));
  EXPECT_DOUBLE_EQ(v.values[0], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(v.values[1], 0.8);
  EXPECT_EQ(c.get_name_value().size(), 2u);
  EXPECT_THROW(v.value(), Error);
  EXPECT_THROW(c.get_metric(2), Error);
  c.reset();
  EXPECT_TRUE(std::isnan(c.get().values[0]));
}

TEST(Create, MXNetNamesAndArguments) {
  EXPECT_EQ(create("acc")->name(), "accuracy");
  EXPECT_EQ(create("Accuracy")->name(), "accuracy");
  EXPECT_EQ(create("top_k_accuracy", {{"top_k", "3"}})->name(), "top_k_accuracy_3");
  EXPECT_EQ(create("ce")->name(), "cross-entropy");
  EXPECT_EQ(create("f1", {{"average", "micro"}, {"name", "f1m"}})->name(), "f1m");
  for (const char* n : {"mae", "mse", "rmse", "loss"}) EXPECT_EQ(create(n)->name(), n);
  auto both = create(std::vector<std::string>{"acc", "f1"});
  both->update({labels()}, {probs()});
  EXPECT_EQ(both->get().names, (std::vector<std::string>{"accuracy", "f1"}));
  expect_message([] { create("accuracy2"); }, "known metrics: accuracy, acc");
  expect_message([] { create("acc", {{"top_k", "2"}}); }, "has no argument 'top_k'");
  expect_message([] { create("top_k_accuracy"); }, "needs top_k");
}

}  // namespace
}  // namespace braid::test::metric_tests
