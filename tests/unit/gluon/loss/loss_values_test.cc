// Loss values against the formulas computed here in double precision, the weight and
// sample_weight effects, batch_axis, label reshaping, sparse vs dense labels, and repr.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "../gluon_test_util.h"
#include "braid/base/error.h"
#include "braid/gluon/loss.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/indexing.h"
#include "braid/ndarray/invoke.h"

namespace braid::gluon {
namespace {

using namespace test_util;

constexpr int64_t kN = 4, kC = 5;

// Row means of an elementwise function of (pred, label) over (kN, kC) arrays.
Values row_means(const Values& p, const Values& l, const std::function<double(double, double)>& f) {
  Values out(kN, 0);
  for (int64_t i = 0; i < kN; ++i) {
    for (int64_t j = 0; j < kC; ++j) out[i] += f(p[i * kC + j], l[i * kC + j]);
    out[i] /= kC;
  }
  return out;
}

// log_softmax of each row of a (kN, kC) array.
Values log_softmax_rows(const Values& p) {
  Values out(p.size());
  for (int64_t i = 0; i < kN; ++i) {
    double m = -1e300, s = 0;
    for (int64_t j = 0; j < kC; ++j) m = std::max(m, p[i * kC + j]);
    for (int64_t j = 0; j < kC; ++j) s += std::exp(p[i * kC + j] - m);
    for (int64_t j = 0; j < kC; ++j) out[i * kC + j] = p[i * kC + j] - m - std::log(s);
  }
  return out;
}

struct LossData {
  NDArray pred = random_array(Shape({kN, kC}), 51, DType::Float32, -3, 3);
  NDArray label = random_array(Shape({kN, kC}), 52, DType::Float32, -3, 3);
  Values p = values(pred), l = values(label);
};

TEST(Losses, RegressionLossesMatchTheirFormulas) {
  LossData d;
  loss::L2Loss l2;
  expect_values(l2(d.pred, d.label), row_means(d.p, d.l, [](double p, double l) { return 0.5 * (p - l) * (p - l); }),
                1e-5, "L2");
  loss::L1Loss l1;
  expect_values(l1(d.pred, d.label), row_means(d.p, d.l, [](double p, double l) { return std::abs(p - l); }), 1e-5,
                "L1");
  for (double rho : {1.0, 0.5, 4.0}) {
    loss::HuberLoss huber(rho);
    expect_values(huber(d.pred, d.label),
                  row_means(d.p, d.l,
                            [rho](double p, double l) {
                              const double e = std::abs(p - l);
                              return e > rho ? e - 0.5 * rho : 0.5 / rho * e * e;
                            }),
                  1e-5, "Huber rho=" + std::to_string(rho));
  }
}

TEST(Losses, WeightAndSampleWeightMultiply) {
  LossData d;
  loss::L1Loss plain, weighted({.weight = 3.0});
  const Values base = values(plain(d.pred, d.label));
  Values want;
  for (double b : base) want.push_back(3 * b);
  expect_values(weighted(d.pred, d.label), want, 1e-5, "weight");
  // Per-sample weights (kN, 1) broadcast over the row.
  const NDArray sw = make(Shape({kN, 1}), {1, 0, 2, 0.5});
  expect_values(plain(d.pred, d.label, sw), {base[0], 0, 2 * base[2], 0.5 * base[3]}, 1e-5, "sample_weight");
  // Elementwise weights: zero on every column but the first.
  Values mask(kN * kC, 0);
  for (int64_t i = 0; i < kN; ++i) mask[i * kC] = kC;
  const Values first = values(plain(d.pred, d.label, make(Shape({kN, kC}), mask)));
  for (int64_t i = 0; i < kN; ++i) EXPECT_NEAR(first[i], std::abs(d.p[i * kC] - d.l[i * kC]), 1e-5);
  // L2Loss halves its weight (default 1).
  loss::L2Loss l2w({.weight = 4.0});
  expect_values(l2w(d.pred, d.label), row_means(d.p, d.l, [](double p, double l) { return 2 * (p - l) * (p - l); }),
                1e-4, "L2 weight 4");
}

TEST(Losses, LabelIsReshapedAndBatchAxisKept) {
  LossData d;
  loss::L2Loss l2;
  const NDArray flat_label = d.label.reshape({kN * kC});
  expect_close(l2(d.pred, flat_label), l2(d.pred, d.label));
  EXPECT_THROW(l2(d.pred, make(Shape({3}), {1, 2, 3})), Error);
  // batch_axis = 1: pred (kC, kN) averages over axis 0.
  loss::L1Loss by_column({.batch_axis = 1});
  const NDArray pt = nd::invoke1("transpose", {d.pred}), lt = nd::invoke1("transpose", {d.label});
  expect_close(by_column(pt, lt), loss::L1Loss()(d.pred, d.label), 1e-6);
  // 3-D: the mean runs over every axis but the batch.
  const NDArray p3 = d.pred.reshape({2, 2, kC}), l3 = d.label.reshape({2, 2, kC});
  const Values per_row = values(loss::L1Loss()(d.pred, d.label));
  expect_values(loss::L1Loss()(p3, l3), {(per_row[0] + per_row[1]) / 2, (per_row[2] + per_row[3]) / 2}, 1e-5);
  // 1-D: one element per sample, nothing to average.
  expect_values(loss::L1Loss()(make(Shape({3}), {1, 2, 3}), make(Shape({3}), {0, 4, 3})), {1, 2, 0}, 0);
}

TEST(Losses, SoftmaxCrossEntropySparseAndDenseAgree) {
  LossData d;
  const Values lsm = log_softmax_rows(d.p);
  const NDArray label = make(Shape({kN}), {0, 4, 2, 2});
  const Values idx = values(label);
  Values want;
  for (int64_t i = 0; i < kN; ++i) want.push_back(-lsm[i * kC + static_cast<int64_t>(idx[i])]);
  loss::SoftmaxCrossEntropyLoss ce;
  const NDArray sparse = ce(d.pred, label);
  expect_values(sparse, want, 1e-5, "sparse");
  // The label may keep the class axis as 1.
  expect_close(ce(d.pred, label.reshape({kN, 1})), sparse);
  // Dense one-hot labels give the same values.
  loss::SoftmaxCrossEntropyLoss dense(-1, false);
  expect_close(dense(d.pred, nd::one_hot(label, kC)), sparse, 1e-6, 1e-6);
  // from_logits: pred already holds log-probabilities.
  loss::SoftmaxCrossEntropyLoss logits(-1, true, true);
  expect_close(logits(nd::invoke1("log_softmax", {d.pred}), label), sparse, 1e-6, 1e-6);
  // Dense soft labels: -sum(label * log_softmax).
  const NDArray soft = nd::invoke1("softmax", {d.label});
  const Values sv = values(soft);
  Values want_soft(kN, 0);
  for (int64_t i = 0; i < kN; ++i)
    for (int64_t j = 0; j < kC; ++j) want_soft[i] -= sv[i * kC + j] * lsm[i * kC + j];
  expect_values(dense(d.pred, soft), want_soft, 1e-5, "soft labels");
  // A sample weight shaped like the label scales each sample.
  expect_values(ce(d.pred, label, make(Shape({kN, 1}), {1, 2, 0, 1})), {want[0], 2 * want[1], 0, want[3]}, 1e-5);
  EXPECT_THROW(ce(d.pred, make(Shape({kN, 2}), {0, 1, 0, 1, 0, 1, 0, 1})), Error);
}

TEST(Losses, SoftmaxCrossEntropyAlongAnotherAxis) {
  // pred (2, 3 classes, 4 positions) with axis=1: label (2, 4); the mean runs over positions.
  const NDArray pred = random_array(Shape({2, 3, 4}), 53, DType::Float32, -2, 2);
  const NDArray label = make(Shape({2, 4}), {0, 1, 2, 1, 2, 2, 0, 1});
  const Values p = values(pred), l = values(label);
  Values want(2, 0);
  for (int n = 0; n < 2; ++n)
    for (int t = 0; t < 4; ++t) {
      double s = 0;
      for (int c = 0; c < 3; ++c) s += std::exp(p[(n * 3 + c) * 4 + t]);
      want[n] -= (p[(n * 3 + static_cast<int>(l[n * 4 + t])) * 4 + t] - std::log(s)) / 4;
    }
  loss::SoftmaxCrossEntropyLoss ce(1);
  expect_values(ce(pred, label), want, 1e-5);
}

TEST(Losses, SigmoidBinaryCrossEntropy) {
  LossData d;
  const NDArray z = random_array(Shape({kN, kC}), 54, DType::Float32, 0, 1);
  const Values zv = values(z);
  auto bce = [](double x, double t, double pw) {
    const double s = 1 / (1 + std::exp(-x));
    return -(pw * t * std::log(s) + (1 - t) * std::log(1 - s));
  };
  loss::SigmoidBCELoss from_logits;
  expect_values(from_logits(d.pred, z), row_means(d.p, zv, [&](double x, double t) { return bce(x, t, 1); }), 1e-5,
                "logits");
  // Large logits stay finite (the stable form).
  const Values big = values(from_logits(make(Shape({1, 2}), {80, -80}), make(Shape({1, 2}), {0, 1})));
  EXPECT_NEAR(big[0], 80, 1e-3);
  // from_sigmoid: pred is a probability.
  loss::SigmoidBCELoss from_probs(true);
  const NDArray prob = nd::sigmoid(d.pred);
  expect_values(from_probs(prob, z), row_means(d.p, zv, [&](double x, double t) { return bce(x, t, 1); }), 1e-4,
                "probabilities");
  // pos_weight (1, kC) weights the positive term of each class.
  const NDArray pw = make(Shape({1, kC}), {1, 2, 0.5, 3, 1});
  const Values pwv = values(pw);
  Values want(kN, 0);
  for (int64_t i = 0; i < kN; ++i) {
    for (int64_t j = 0; j < kC; ++j) want[i] += bce(d.p[i * kC + j], zv[i * kC + j], pwv[j]);
    want[i] /= kC;
  }
  expect_values(from_logits(d.pred, z, NDArray(), pw), want, 1e-5, "pos_weight");
  expect_values(from_probs(prob, z, NDArray(), pw), want, 1e-4, "pos_weight from_sigmoid");
}

TEST(Losses, KLDivergence) {
  LossData d;
  const NDArray target = nd::invoke1("softmax", {d.label});
  const Values t = values(target), lsm = log_softmax_rows(d.p);
  Values want(kN, 0);
  for (int64_t i = 0; i < kN; ++i) {
    for (int64_t j = 0; j < kC; ++j) want[i] += t[i * kC + j] * (std::log(t[i * kC + j] + 1e-12) - lsm[i * kC + j]);
    want[i] /= kC;
  }
  loss::KLDivLoss kl;  // from_logits: pred holds log-probabilities
  expect_values(kl(nd::invoke1("log_softmax", {d.pred}), target), want, 1e-5, "from_logits");
  loss::KLDivLoss kl_raw(false);
  expect_values(kl_raw(d.pred, target), want, 1e-5, "from raw scores");
}

TEST(Losses, ReprAndNames) {
  EXPECT_EQ(loss::L2Loss().repr(), "L2Loss(batch_axis=0, w=1.0)");
  EXPECT_EQ(loss::L1Loss().repr(), "L1Loss(batch_axis=0, w=None)");
  EXPECT_EQ(loss::SoftmaxCrossEntropyLoss(-1, true, false, {.weight = 0.5, .batch_axis = 1}).repr(),
            "SoftmaxCrossEntropyLoss(batch_axis=1, w=0.5)");
  EXPECT_EQ(loss::SigmoidBCELoss().repr(), "SigmoidBinaryCrossEntropyLoss(batch_axis=0, w=None)");
  EXPECT_EQ(loss::HuberLoss().repr(), "HuberLoss(batch_axis=0, w=None)");
  EXPECT_EQ(loss::KLDivLoss().repr(), "KLDivLoss(batch_axis=0, w=None)");
  loss::L2Loss l2;
  EXPECT_EQ(l2.prefix().rfind("l2loss", 0), 0u) << l2.prefix();
  EXPECT_TRUE(l2.collect_params().empty());
  LossData d;
  EXPECT_THROW(l2.forward({d.pred}), Error);
  EXPECT_THROW(l2.forward({d.pred, d.label, NDArray(), d.label}), Error);
}

}  // namespace
}  // namespace braid::gluon
