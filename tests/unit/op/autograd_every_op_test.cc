// Autograd through every differentiable operator: recording the op and back-propagating must give
// exactly what the op's own backward gives (which the gradient check compares with finite
// differences), for multi-output ops, hidden outputs and aux states alike.
#include <gtest/gtest.h>

#include <set>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/op/registry.h"
#include "unit/op/grad_cases.h"

namespace braid::test {
namespace {

std::vector<NDArray> to_arrays(const GradCase& c, const std::vector<std::vector<double>>& values) {
  std::vector<NDArray> out;
  for (size_t i = 0; i < values.size(); ++i) out.push_back(nd::array(values[i], c.shapes[i], cpu(), DType::Float64));
  return out;
}

class AutogradEveryOp : public ::testing::TestWithParam<GradCase> {};

TEST_P(AutogradEveryOp, MatchesTheOpsOwnBackward) {
  const GradCase& c = GetParam();
  const op::OpDef& def = op::Registry::get().find(c.op);
  const size_t nargs = def.list_arguments(def.parse(c.attrs)).size();
  std::set<int> skip(c.skip.begin(), c.skip.end());
  // Loss layers (SoftmaxOutput, *RegressionOutput) skip every input in the finite-difference table
  // because their gradient ignores the head gradient; their data gradient is still compared here.
  if (skip.size() == nargs) skip.erase(0);
  std::mt19937_64 gen(99);
  const auto values = random_inputs(c, gen);

  // Recorded and back-propagated with autograd.
  std::vector<NDArray> a = to_arrays(c, values);
  for (size_t i = 0; i < nargs; ++i)
    if (!skip.count(static_cast<int>(i))) a[i].attach_grad();
  nd::seed(5);
  std::vector<NDArray> outs;
  {
    autograd::RecordScope rec(c.is_train);
    outs = nd::invoke(c.op, a, c.attrs);
  }
  std::vector<NDArray> head_grads;
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const auto& o : outs) {
    std::vector<double> g(static_cast<size_t>(o.size()));
    for (auto& v : g) v = normal(gen);
    head_grads.push_back(nd::array(g, o.shape(), cpu(), DType::Float64));
  }
  autograd::backward(outs, head_grads);

  // The op's own forward and backward on fresh copies (aux states may be updated in training).
  std::vector<NDArray> b = to_arrays(c, values);
  nd::seed(5);
  std::vector<NDArray> all;
  {
    autograd::ModeScope mode(c.is_train);
    all = nd::invoke_all(c.op, b, c.attrs);
  }
  std::vector<NDArray> expected(nargs);
  for (size_t i = 0; i < nargs; ++i)
    if (!skip.count(static_cast<int>(i))) expected[i] = nd::zeros(c.shapes[i], cpu(), DType::Float64);
  {
    autograd::ModeScope mode(c.is_train);
    nd::invoke_backward(c.op, c.attrs, head_grads, b, all, expected);
  }

  for (size_t i = 0; i < nargs; ++i) {
    if (skip.count(static_cast<int>(i))) continue;
    auto got = a[i].grad().to_vector<double>();
    auto want = expected[i].to_vector<double>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t j = 0; j < got.size(); ++j)
      ASSERT_NEAR(got[j], want[j], 1e-12 * (1 + std::abs(want[j]))) << c.op << " input " << i << " element " << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, AutogradEveryOp, ::testing::ValuesIn(all_grad_cases()), grad_case_name);

}  // namespace
}  // namespace braid::test
