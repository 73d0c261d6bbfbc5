// The CUDA kernels of the fused optimizer updates (src/op/optimizer/optimizer_ops.cu) against
// their CPU kernels: the weight and every state after one update, float32 and float64, and the
// mp_ twins with float16 and float32 weights, with and without gradient clipping; the multi-weight
// updates.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/device/gpu.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "common/gpu_compare.h"
#include "common/gpu_test.h"
#include "op/optimizer/multi_update_op.h"
#include "op/optimizer/update_op_list.h"

using namespace braid;

namespace {

// The attributes of one call: MXNet's common four (clipping when `clip`), the step t where the op
// needs it, and non-default momentum so that it matters.
op::AttrMap update_attrs(const op::detail::UpdateOpSpec& spec, bool clip) {
  op::AttrMap attrs{{"wd", "0.01"}, {"rescale_grad", "0.5"}, {spec.attrs.clip_attr, clip ? "0.3" : "-1"}};
  if (spec.attrs.has_lr) attrs["lr"] = "0.1";
  if (spec.attrs.has_t) attrs["t"] = "3";
  for (const auto& [key, value] : spec.attrs.extra)
    if (key == "momentum") attrs[key] = "0.9";
  return attrs;
}

std::string attrs_text(const op::AttrMap& attrs) {
  std::string text;
  for (const auto& [key, value] : attrs) text += cat(text.empty() ? "" : " ", key, "=", value);
  return text;
}

// Runs `op` on both devices from the same weight, grad and states (and weight32 for an mp_ op),
// then compares the weight and everything updated in place.
void expect_update_matches_cpu(const std::string& op, const op::AttrMap& attrs, size_t states, DType dtype, bool mp,
                               double rtol) {
  const Shape shape({7, 33});
  std::vector<NDArray> cpu_in{nd::random_uniform(-1.0, 1.0, shape, cpu(), DType::Float32).astype(dtype),
                              nd::random_uniform(-2.0, 2.0, shape, cpu(), DType::Float32).astype(dtype)};
  const DType state_dtype = mp ? DType::Float32 : dtype;
  // In [0.3, 0.5]: the centered RMSProp keeps n - g^2 positive.
  for (size_t k = 0; k < states; ++k) cpu_in.push_back(nd::random_uniform(0.3, 0.5, shape, cpu(), state_dtype));
  if (mp) cpu_in.push_back(cpu_in[0].astype(DType::Float32));
  std::vector<NDArray> gpu_in;
  for (const auto& x : cpu_in) gpu_in.push_back(x.copyto(gpu(0)));
  nd::invoke(op, cpu_in, attrs, {cpu_in[0]});
  nd::invoke(op, gpu_in, attrs, {gpu_in[0]});
  for (size_t k = 0; k < cpu_in.size(); ++k)
    if (k != 1)
      test::expect_gpu_matches_cpu(
          gpu_in[k], cpu_in[k], rtol,
          cat(op, " ", dtype_name(dtype), " ", attrs_text(attrs), k == 0 ? " weight" : cat(" argument ", k)));
}

TEST(OptimizerGpu, CudaBuildsRegisterTheUpdateKernels) {
  if (!gpu_runtime::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  op::detail::for_each_update_op([](auto, const op::detail::UpdateOpSpec& spec) {
    EXPECT_TRUE(test::has_gpu_kernels(spec.name, false)) << spec.name;
    if (!spec.mp_name.empty()) {
      EXPECT_TRUE(test::has_gpu_kernels(spec.mp_name, false)) << spec.mp_name;
    }
  });
  op::detail::for_each_multi_update_op([](auto, const op::detail::MultiUpdateSpec& spec) {
    EXPECT_TRUE(test::has_gpu_kernels(spec.name, false)) << spec.name;
  });
}

TEST(OptimizerGpu, EveryUpdateMatchesTheCpu) {
  REQUIRE_GPU();
  nd::seed(41);
  op::detail::for_each_update_op([](auto, const op::detail::UpdateOpSpec& spec) {
    for (bool clip : {false, true}) {
      const op::AttrMap attrs = update_attrs(spec, clip);
      expect_update_matches_cpu(spec.name, attrs, spec.states.size(), DType::Float32, false, 1e-5);
      expect_update_matches_cpu(spec.name, attrs, spec.states.size(), DType::Float64, false, 1e-12);
      if (spec.mp_name.empty()) continue;
      expect_update_matches_cpu(spec.mp_name, attrs, spec.states.size(), DType::Float32, true, 1e-5);
      // A float16 weight may round the other way where the float32 results differ in the last bit.
      expect_update_matches_cpu(spec.mp_name, attrs, spec.states.size(), DType::Float16, true, 1e-3);
    }
  });
}

// One multi_mp_sgd_mom_update over three weights of different shapes and rates on both devices.
TEST(OptimizerGpu, MultiWeightUpdatesMatchTheCpu) {
  REQUIRE_GPU();
  nd::seed(43);
  for (const std::string op : {"multi_sgd_update", "multi_sgd_mom_update", "multi_mp_sgd_mom_update"}) {
    const bool mom = op.find("mom") != std::string::npos, mp = op.find("_mp_") != std::string::npos;
    std::vector<NDArray> cpu_in, cpu_out;
    for (const Shape& shape : {Shape({7, 33}), Shape({5}), Shape({3, 4, 5})}) {
      NDArray w = nd::random_uniform(-1, 1, shape);
      cpu_in.push_back(mp ? w.astype(DType::Float16) : w);
      cpu_out.push_back(cpu_in.back());
      cpu_in.push_back(nd::random_uniform(-2, 2, shape).astype(cpu_in.back().dtype()));
      if (mom) cpu_in.push_back(nd::random_uniform(-0.1, 0.1, shape));
      if (mp) cpu_in.push_back(w);
    }
    const size_t group = cpu_in.size() / 3;
    std::vector<NDArray> gpu_in, gpu_out;
    for (const auto& x : cpu_in) gpu_in.push_back(x.copyto(gpu(0)));
    for (size_t i = 0; i < 3; ++i) gpu_out.push_back(gpu_in[i * group]);
    op::AttrMap attrs{{"lrs", "(0.1, 0.2, 0.05)"},
                      {"wds", "(0.01, 0, 0.1)"},
                      {"num_weights", "3"},
                      {"rescale_grad", "0.5"},
                      {"clip_gradient", "0.3"}};
    if (mom) attrs["momentum"] = "0.9";
    nd::invoke(op, cpu_in, attrs, cpu_out);
    nd::invoke(op, gpu_in, attrs, gpu_out);
    for (size_t k = 0; k < cpu_in.size(); ++k)
      if (k % group != 1)
        test::expect_gpu_matches_cpu(gpu_in[k], cpu_in[k], mp ? 1e-3 : 1e-5, cat(op, " argument ", k));
  }
}

}  // namespace
