// Gradients of every loss with respect to pred, by autograd, against central finite differences
// of the summed loss (float64), with weight and sample_weight in play.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "../gluon_test_util.h"
#include "braid/autograd/autograd.h"
#include "braid/gluon/loss.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/reduce.h"

namespace braid::gluon {
namespace {

using namespace test_util;

constexpr DType kF64 = DType::Float64;

struct GradCase {
  std::string name;
  std::shared_ptr<loss::Loss> loss;
  NDArray pred, label, sample_weight;
  std::vector<NDArray> extra = {};
};

double summed_loss(const GradCase& c, const NDArray& pred) {
  std::vector<NDArray> in{pred, c.label, c.sample_weight};
  in.insert(in.end(), c.extra.begin(), c.extra.end());
  return nd::sum(c.loss->forward(in)[0]).scalar<double>();
}

void check_gradient(const GradCase& c) {
  SCOPED_TRACE(c.name);
  NDArray pred = c.pred.copy();
  pred.attach_grad();
  std::vector<NDArray> in{pred, c.label, c.sample_weight};
  in.insert(in.end(), c.extra.begin(), c.extra.end());
  NDArray l;
  {
    autograd::RecordScope rec;
    l = c.loss->forward(in)[0];
  }
  l.backward();
  const Values grad = values(pred.grad());
  const Values base = values(c.pred);
  const double h = 1e-6;
  for (size_t i = 0; i < base.size(); i += 3) {
    Values plus = base, minus = base;
    plus[i] += h;
    minus[i] -= h;
    const double fd =
        (summed_loss(c, make(c.pred.shape(), plus, kF64)) - summed_loss(c, make(c.pred.shape(), minus, kF64))) /
        (2 * h);
    ASSERT_NEAR(grad[i], fd, 1e-6 * std::max(1.0, std::abs(fd))) << "element " << i;
  }
}

TEST(LossGradients, MatchFiniteDifferences) {
  const Shape s({3, 4});
  const NDArray pred = random_array(s, 61, kF64, -3, 3);
  const NDArray target = random_array(s, 62, kF64, -3, 3);
  const NDArray prob_target = random_array(s, 63, kF64, 0.05, 0.95);
  const NDArray sw = make(Shape({3, 1}), {0.5, 2, 1}, kF64);
  const NDArray classes = make(Shape({3}), {1, 3, 0}, kF64);
  const NDArray dist = nd::invoke1("softmax", {target});
  const loss::LossOptions w2{.weight = 2.0};
  const std::vector<GradCase> cases = {
      {"L2", std::make_shared<loss::L2Loss>(w2), pred, target, sw},
      {"L1", std::make_shared<loss::L1Loss>(), pred, target, sw},
      {"Huber", std::make_shared<loss::HuberLoss>(1.5, w2), pred, target, NDArray()},
      {"SoftmaxCE sparse", std::make_shared<loss::SoftmaxCELoss>(-1, true, false, w2), pred, classes, sw},
      {"SoftmaxCE dense", std::make_shared<loss::SoftmaxCELoss>(-1, false), pred, dist, sw},
      {"SoftmaxCE axis 0", std::make_shared<loss::SoftmaxCELoss>(0, true, false, loss::LossOptions{.batch_axis = 1}),
       pred, make(Shape({4}), {2, 0, 1, 2}, kF64), NDArray()},
      {"SigmoidBCE", std::make_shared<loss::SigmoidBCELoss>(), pred, prob_target, sw},
      {"SigmoidBCE pos_weight",
       std::make_shared<loss::SigmoidBCELoss>(false, w2),
       pred,
       prob_target,
       NDArray(),
       {make(Shape({1, 4}), {1, 2, 0.5, 3}, kF64)}},
      {"SigmoidBCE from_sigmoid",
       std::make_shared<loss::SigmoidBCELoss>(true),
       nd::sigmoid(pred),
       prob_target,
       sw,
       {make(Shape({1, 4}), {1, 2, 0.5, 3}, kF64)}},
      {"KLDiv", std::make_shared<loss::KLDivLoss>(true), nd::invoke1("log_softmax", {pred}), dist, sw},
      {"KLDiv from scores", std::make_shared<loss::KLDivLoss>(false, -1, w2), pred, dist, NDArray()},
  };
  for (const auto& c : cases) check_gradient(c);
}

}  // namespace
}  // namespace braid::gluon
