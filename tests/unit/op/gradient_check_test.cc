// Compares each differentiable operator's analytic gradient with central finite differences in
// float64 on random inputs, and fails for a differentiable operator without a case.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "braid/ndarray/creation.h"
#include "braid/op/registry.h"
#include "unit/op/grad_cases.h"

namespace braid::test {
namespace {

struct Runner {
  const op::OpDef& def;
  std::any param;
  const GradCase& c;
  std::vector<Shape> in_shapes, out_shapes, aux_shapes;
  size_t nargs;

  Runner(const GradCase& gc) : def(op::Registry::get().find(gc.op)), c(gc) {
    param = def.parse(gc.attrs);
    nargs = def.list_arguments(param).size();
    size_t naux = def.list_aux(param).size();
    EXPECT_EQ(gc.shapes.size(), nargs + naux) << gc.op;
    in_shapes.assign(gc.shapes.begin(), gc.shapes.begin() + static_cast<long>(nargs));
    aux_shapes.assign(gc.shapes.begin() + static_cast<long>(nargs), gc.shapes.end());
    out_shapes.resize(static_cast<size_t>(def.num_outputs(param)));
    const bool known = def.infer_shape(param, in_shapes, out_shapes, aux_shapes);
    EXPECT_TRUE(known || def.value_dependent_shape) << gc.op;
  }

  // The output shapes of an op whose shapes depend on its inputs' values (boolean_mask).
  void shapes_from_values(const std::vector<std::vector<double>>& inputs) {
    if (!def.value_dependent_shape) return;
    std::vector<NDArray> arrays;
    for (size_t i = 0; i < nargs; ++i) arrays.push_back(nd::array(inputs[i], in_shapes[i], cpu(), DType::Float64));
    out_shapes = def.value_dependent_shape(param, arrays);
  }

  static op::TBlob blob(std::vector<double>& v, const Shape& s) { return {v.data(), s, DType::Float64}; }

  // Forward on (a copy of) the inputs; returns the outputs.
  std::vector<std::vector<double>> forward(const std::vector<std::vector<double>>& inputs) {
    std::vector<std::vector<double>> ins = inputs, outs;
    shapes_from_values(ins);
    op::ForwardArgs fa;
    for (size_t i = 0; i < ins.size(); ++i)
      (i < nargs ? fa.inputs : fa.aux).push_back(blob(ins[i], i < nargs ? in_shapes[i] : aux_shapes[i - nargs]));
    outs.resize(out_shapes.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      outs[i].assign(static_cast<size_t>(out_shapes[i].size()), 0.0);
      fa.outputs.push_back(blob(outs[i], out_shapes[i]));
    }
    fa.req.assign(outs.size(), op::OpReq::Write);
    std::mt19937_64 rng(7);  // the same random draws (Dropout masks) at every call
    op::OpContext ctx{c.is_train, cpu(), &rng};
    def.cpu.forward(ctx, param, fa);
    return outs;
  }
};

TEST(GradientCheck, EveryDifferentiableOpHasACase) {
  std::set<std::string> covered;
  for (const auto& c : all_grad_cases()) covered.insert(op::Registry::get().find(c.op).name);
  for (const auto& name : op::Registry::get().names()) {
    const auto& def = op::Registry::get().find(name);
    // Host ops (Custom) compute in Python: python/tests/test_custom_op.py checks their gradients.
    if (def.differentiable() && !def.runs_on_host())
      EXPECT_TRUE(covered.count(name)) << "differentiable operator " << name
                                       << " has no entry in the gradient-check table";
  }
}

class GradientCheck : public ::testing::TestWithParam<GradCase> {};

TEST_P(GradientCheck, AnalyticMatchesFiniteDifferences) {
  const GradCase& c = GetParam();
  Runner run(c);
  ASSERT_TRUE(run.def.cpu.backward) << c.op << " has no backward";
  std::mt19937_64 gen(1234);
  std::vector<std::vector<double>> inputs = random_inputs(c, gen);

  // Loss L = sum_k w_k * out_k over every output, with fixed random weights w.
  auto outs = run.forward(inputs);
  std::vector<std::vector<double>> w(outs.size());
  std::normal_distribution<double> nd(0.0, 1.0);
  const size_t visible =
      c.visible_outputs_only && run.def.num_visible_outputs ? run.def.num_visible_outputs(run.param) : outs.size();
  for (size_t k = 0; k < outs.size(); ++k) {
    w[k].resize(outs[k].size());
    for (auto& v : w[k]) v = k < visible ? nd(gen) : 0.0;
  }
  auto loss = [&](const std::vector<std::vector<double>>& ins) {
    auto o = run.forward(ins);
    double l = 0;
    for (size_t k = 0; k < o.size(); ++k)
      for (size_t j = 0; j < o[k].size(); ++j) l += w[k][j] * o[k][j];
    return l;
  };

  // Analytic gradient. Inputs not checked get req Null; the rest Write onto garbage to make sure
  // the kernel overwrites.
  std::vector<std::vector<double>> ins = inputs, grads(run.nargs);
  op::BackwardArgs ba;
  for (size_t i = 0; i < ins.size(); ++i) {
    auto& shape = i < run.nargs ? run.in_shapes[i] : run.aux_shapes[i - run.nargs];
    (i < run.nargs ? ba.inputs : ba.aux).push_back(Runner::blob(ins[i], shape));
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    ba.outputs.push_back(Runner::blob(outs[k], run.out_shapes[k]));
    ba.out_grads.push_back(Runner::blob(w[k], run.out_shapes[k]));
  }
  std::set<int> skip(c.skip.begin(), c.skip.end());
  for (size_t i = 0; i < run.nargs; ++i) {
    grads[i].assign(inputs[i].size(), 12345.0);
    ba.in_grads.push_back(Runner::blob(grads[i], run.in_shapes[i]));
    ba.req.push_back(skip.count(static_cast<int>(i)) ? op::OpReq::Null : op::OpReq::Write);
  }
  std::mt19937_64 rng(7);
  op::OpContext ctx{c.is_train, cpu(), &rng};
  run.def.cpu.backward(ctx, run.param, ba);

  const std::set<int> symmetric(c.symmetric.begin(), c.symmetric.end());
  for (size_t i = 0; i < run.nargs; ++i) {
    if (skip.count(static_cast<int>(i))) continue;
    const int64_t n = run.in_shapes[i].ndim() > 0 ? run.in_shapes[i].back() : 1;
    for (size_t j = 0; j < inputs[i].size(); ++j) {
      // In a symmetric input, element j moves with its mirror (and the lower triangle is skipped).
      size_t mirror = j;
      if (symmetric.count(static_cast<int>(i))) {
        const auto at = static_cast<int64_t>(j), base = at - at % (n * n), r = (at % (n * n)) / n, k = at % n;
        if (r > k) continue;
        mirror = static_cast<size_t>(base + k * n + r);
      }
      auto plus = inputs, minus = inputs;
      plus[i][j] += c.eps;
      minus[i][j] -= c.eps;
      if (mirror != j) {
        plus[i][mirror] += c.eps;
        minus[i][mirror] -= c.eps;
      }
      double numeric = (loss(plus) - loss(minus)) / (2 * c.eps);
      double analytic = grads[i][j] + (mirror != j ? grads[i][mirror] : 0.0);
      ASSERT_NEAR(analytic, numeric, c.atol + c.rtol * std::abs(numeric))
          << c.op << ": gradient of input " << i << " element " << j;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GradientCheck, ::testing::ValuesIn(all_grad_cases()), grad_case_name);

}  // namespace
}  // namespace braid::test
