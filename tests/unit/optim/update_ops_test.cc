// The fused update operators on their own: MXNet's argument names, in-place updates through
// nd::invoke with out=weight, states written through the engine, multi-precision, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/base/half.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/registry.h"
#include "expect_error.h"

namespace braid::test {
namespace {

using V = std::vector<double>;

void expect_near(const NDArray& a, const V& want, double tol = 1e-6) {
  V got = a.to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(UpdateOps, ArgumentsAndMutatedInputsAreMXNets) {
  struct Want {
    std::string op;
    std::vector<std::string> args;
    std::vector<int> mutated;
  };
  std::vector<Want> wants = {
      {"sgd_update", {"weight", "grad"}, {}},
      {"sgd_mom_update", {"weight", "grad", "mom"}, {2}},
      {"mp_sgd_update", {"weight", "grad", "weight32"}, {2}},
      {"mp_sgd_mom_update", {"weight", "grad", "mom", "weight32"}, {2, 3}},
      {"nag_mom_update", {"weight", "grad", "mom"}, {2}},
      {"mp_nag_mom_update", {"weight", "grad", "mom", "weight32"}, {2, 3}},
      {"adam_update", {"weight", "grad", "mean", "var"}, {2, 3}},
      {"rmsprop_update", {"weight", "grad", "n"}, {2}},
      {"rmspropalex_update", {"weight", "grad", "n", "g", "delta"}, {2, 3, 4}},
      {"_sparse_adagrad_update", {"weight", "grad", "history"}, {2}},
      {"_braid_adadelta_update", {"weight", "grad", "acc_g", "acc_delta"}, {2, 3}},
      {"_braid_mp_adamw_update", {"weight", "grad", "mean", "var", "weight32"}, {2, 3, 4}},
      {"signsgd_update", {"weight", "grad"}, {}},
      {"signum_update", {"weight", "grad", "mom"}, {2}},
      {"ftml_update", {"weight", "grad", "d", "v", "z"}, {2, 3, 4}},
      {"ftrl_update", {"weight", "grad", "z", "n"}, {2, 3}},
  };
  for (const auto& w : wants) {
    const op::OpDef& d = op::Registry::get().find(w.op);
    EXPECT_EQ(d.list_arguments(std::any()), w.args) << w.op;
    EXPECT_EQ(d.mutate_inputs(std::any()), w.mutated) << w.op;
    EXPECT_FALSE(d.differentiable()) << w.op;
  }
}

TEST(UpdateOps, SgdMomUpdateChangesWeightAndMomentumInPlace) {
  NDArray w = nd::array({1.0f, -2.0f, 0.5f}), g = nd::array({0.5f, 1.0f, -4.0f}), mom = nd::array({0.1f, 0.0f, -0.2f});
  nd::invoke("sgd_mom_update", {w, g, mom},
             {{"lr", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}, {"rescale_grad", "0.5"}, {"clip_gradient", "1"}},
             {w});
  // mom = 0.9*mom - lr*wd*w - lr*clip(0.5*g, 1); w += mom
  V m{0.9 * 0.1 - 0.001 * 1 - 0.1 * 0.25, 0 - 0.001 * -2 - 0.1 * 0.5, 0.9 * -0.2 - 0.001 * 0.5 - 0.1 * -1};
  expect_near(mom, m);
  expect_near(w, {1 + m[0], -2 + m[1], 0.5 + m[2]});
}

TEST(UpdateOps, StatesAreEngineWritesSoReadersWaitForThem) {
  // Many queued updates of a large array: reading mom must wait for all of them, which it only
  // does when the updates register mom as written.
  const int64_t n = 1 << 20;
  const int steps = 20;
  NDArray w = nd::zeros(Shape({n})), g = nd::ones(Shape({n})), mom = nd::zeros(Shape({n}));
  for (int s = 0; s < steps; ++s) nd::invoke("sgd_mom_update", {w, g, mom}, {{"lr", "0.1"}, {"momentum", "0.5"}}, {w});
  V m = mom.to_vector<double>();
  const double want = -0.2 * (1 - std::pow(0.5, steps));  // mom_k = 0.5*mom_{k-1} - 0.1
  EXPECT_NEAR(m.front(), want, 1e-6);
  EXPECT_NEAR(m.back(), want, 1e-6);
}

// Without a master copy a float16 weight is updated in float32 and rounded back: 1 - 0.25*0.5.
TEST(UpdateOps, PlainUpdatesTakeFloat16WeightsAndStates) {
  NDArray w = nd::ones(Shape({2})).astype(DType::Float16), g = nd::full(Shape({2}), 0.25).astype(DType::Float16);
  NDArray mom = nd::zeros(Shape({2})).astype(DType::Float16);
  nd::invoke("sgd_mom_update", {w, g, mom}, {{"lr", "0.5"}, {"momentum", "0.9"}}, {w});
  EXPECT_EQ(w.dtype(), DType::Float16);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{0.875f, 0.875f}));
  EXPECT_EQ(mom.to_vector<float>(), (std::vector<float>{-0.125f, -0.125f}));
}

TEST(UpdateOps, MultiPrecisionAccumulatesBelowFloat16Resolution) {
  // Steps of 1e-4 vanish in float16 at 1.0 (spacing 2^-10 ~ 1e-3) but add up in the master copy.
  NDArray w = nd::ones(Shape({4})).astype(DType::Float16);
  NDArray w32 = nd::ones(Shape({4}));
  NDArray g = nd::full(Shape({4}), 1e-3).astype(DType::Float16);
  for (int s = 0; s < 30; ++s) nd::invoke("mp_sgd_update", {w, g, w32}, {{"lr", "0.1"}}, {w});
  V master = w32.to_vector<double>();
  EXPECT_NEAR(master[0], 1 - 30 * 0.1 * double(half_to_float(float_to_half(1e-3f))), 1e-6);
  EXPECT_EQ(w.to_vector<double>()[0], double(half_to_float(float_to_half(static_cast<float>(master[0])))));
  EXPECT_LT(w.to_vector<double>()[0], 1.0);
}

TEST(UpdateOps, DenseAdaGradUnderMXNetsSparseName) {
  NDArray w = nd::array({1.0f, 2.0f}), g = nd::array({0.5f, -1.0f}), h = nd::array({0.25f, 0.0f});
  nd::invoke("_sparse_adagrad_update", {w, g, h}, {{"lr", "0.1"}, {"epsilon", "1e-7"}}, {w});
  expect_near(h, {0.5, 1.0});
  expect_near(w, {1 - 0.1 * 0.5 / std::sqrt(0.5 + 1e-7), 2 + 0.1 * 1 / std::sqrt(1 + 1e-7)});
}

// MXNet's kernels (optimizer_op-inl.h) worked by hand for one step.
TEST(UpdateOps, SignSgdAndSignumStepBySign) {
  NDArray w = nd::array({1.0f, -2.0f, 0.5f}), g = nd::array({0.5f, -3.0f, 0.0f});
  nd::invoke("signsgd_update", {w, g}, {{"lr", "0.1"}, {"wd", "0.1"}}, {w});
  expect_near(w, {0.99 * 1 - 0.1, 0.99 * -2 + 0.1, 0.99 * 0.5});
  NDArray v = nd::array({1.0f, -2.0f}), h = nd::array({0.5f, 0.1f}), mom = nd::array({0.0f, 1.0f});
  nd::invoke("signum_update", {v, h, mom}, {{"lr", "0.1"}, {"momentum", "0.9"}, {"wd", "0.1"}, {"wd_lh", "0.5"}}, {v});
  // mom = 0.9*mom - 0.1*(0.1*w + g); w = (1 - 0.1*0.5)*w + 0.1*sign(mom)
  const V m{-0.1 * (0.1 + 0.5), 0.9 - 0.1 * (-0.2 + 0.1)};
  expect_near(mom, m);
  expect_near(v, {0.95 * 1 - 0.1, 0.95 * -2 + 0.1});
}

TEST(UpdateOps, FtmlAndFtrlFollowMXNetsKernels) {
  NDArray w = nd::array({1.0f}), g = nd::array({0.5f}), d = nd::array({0.0f}), v = nd::array({0.0f});
  NDArray z = nd::array({0.0f});
  nd::invoke("ftml_update", {w, g, d, v, z}, {{"lr", "0.1"}, {"t", "1"}, {"wd", "0.1"}, {"clip_grad", "10"}}, {w});
  const double grad = 0.5 + 0.1 * 1, vt = 0.001 * grad * grad;
  const double dt = (1 - 0.6) / 0.1 * (std::sqrt(vt / (1 - 0.999)) + 1e-8);
  const double zt = 0.4 * grad - dt * 1;
  expect_near(v, {vt});
  expect_near(d, {dt}, 1e-4);  // float32: 1 - beta2^t loses digits
  expect_near(z, {zt}, 1e-4);
  expect_near(w, {-zt / dt}, 1e-5);

  NDArray x = nd::array({1.0f, 0.2f}), gx = nd::array({2.0f, 0.001f}), zx = nd::array({0.0f, 0.0f});
  NDArray n = nd::array({1.0f, 0.0f});
  nd::invoke("ftrl_update", {x, gx, zx, n}, {{"lr", "0.5"}, {"lamda1", "0.01"}, {"beta", "1"}, {"wd", "0.1"}}, {x});
  // z = g - (sqrt(n + g^2) - sqrt(n))*w/lr; n += g^2; w = (sign(z)*l1 - z)/((beta + sqrt(n))/lr + wd) if |z| > l1
  const double z0 = 2 - (std::sqrt(5.0) - 1) * 1 / 0.5, z1 = 0.001 - (0.001 - 0) * 0.2 / 0.5;
  expect_near(zx, {z0, z1});
  expect_near(n, {5, 1e-6});
  expect_near(x, {(-0.01 - z0) / ((1 + std::sqrt(5.0)) / 0.5 + 0.1), 0.0});  // |z1| < lamda1: 0
}

TEST(UpdateOps, ClipGradientZeroClipsToZeroLikeMXNetsKernels) {
  NDArray w = nd::array({1.0f}), g = nd::array({5.0f});
  nd::invoke("sgd_update", {w, g}, {{"lr", "0.1"}, {"wd", "0.5"}, {"clip_gradient", "0"}}, {w});
  expect_near(w, {0.95});  // only the weight decay acts
  nd::invoke("sgd_update", {w, g}, {{"lr", "0.1"}, {"clip_gradient", "-1"}}, {w});
  expect_near(w, {0.45});  // negative: no clipping
}

TEST(UpdateOps, ErrorsNameTheOperatorAndTheFix) {
  NDArray w = nd::ones(Shape({3})), g = nd::ones(Shape({3})), mom = nd::zeros(Shape({3}));
  expect_error(
      [&] {
        nd::invoke("sgd_update", {w, g}, {{"lr", "0.1"}, {"momentum", "0.9"}}, {w});
      },
      {"sgd_update", "unknown attribute 'momentum'", "lr"});
  expect_error(
      [&] {
        nd::invoke("sgd_mom_update", {w, g, mom}, {{"momentum", "0.9"}}, {w});
      },
      {"sgd_mom_update", "required attribute 'lr'"});
  expect_error(
      [&] {
        nd::invoke("nag_mom_update", {w, g, mom}, {{"lr", "0.1"}, {"lazy_update", "True"}}, {w});
      },
      {"nag_mom_update", "lazy_update"});
  expect_error(
      [&] {
        nd::invoke("_braid_adamw_update", {w, g, mom, mom}, {{"lr", "0.1"}}, {w});
      },
      {"_braid_adamw_update", "'t'"});
  expect_error(
      [&] {
        nd::invoke("_braid_adamw_update", {w, g, mom, mom}, {{"lr", "0.1"}, {"t", "0"}}, {w});
      },
      {"_braid_adamw_update", "t (the update step"});
  expect_error(
      [&] {
        nd::invoke("sgd_mom_update", {w, g, nd::zeros(Shape({4}))}, {{"lr", "0.1"}}, {w});
      },
      {"sgd_mom_update", "shape"});
  NDArray k = nd::ones(Shape({3})).astype(DType::Int32);
  expect_error(
      [&] {
        nd::invoke("sgd_update", {k, k}, {{"lr", "0.1"}}, {k});
      },
      {"sgd_update", "weight is int32", "floating-point"});
  NDArray h = nd::ones(Shape({3})).astype(DType::Float16);
  expect_error(
      [&] {
        nd::invoke("mp_sgd_mom_update", {h, h, h, nd::zeros(Shape({3}))}, {{"lr", "0.1"}}, {h});
      },
      {"mp_sgd_mom_update", "mom is float16", "float32"});
}

}  // namespace
}  // namespace braid::test
