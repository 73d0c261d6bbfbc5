// CUDA kernels of all_finite and multi_all_finite (all_finite.cc): the output set to 1 unless
// init_output is off, then every thread that meets an infinite or NaN element writes 0.
#include "all_finite.h"
#include "op/common/cuda_dtype.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

__global__ void set_one(float* out) { *out = 1.0f; }

template <class T>
__global__ void clear_unless_finite(const T* v, int64_t n, float* out) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    if (!isfinite(static_cast<double>(cuda::load_value(v[i])))) *out = 0.0f;
  }
}

void all_finite_gpu(const OpContext&, const std::any& pa, const ForwardArgs& a) {
  float* out = static_cast<float*>(a.outputs[0].dptr);
  if (param<AllFiniteParam>(pa).init_output) set_one<<<1, 1, 0, cuda::stream()>>>(out);
  for (const TBlob& b : a.inputs) {
    const int64_t n = b.size();
    if (n == 0) continue;
    cuda::with_device_type(b.dtype, "all_finite", [&](auto t) {
      using T = decltype(t);
      clear_unless_finite<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          static_cast<const T*>(b.dptr), n, out);
    });
  }
  cuda::finish("all_finite");
}

}  // namespace

void register_all_finite_gpu_kernels(Registry& r) {
  r.at("all_finite").gpu.forward = all_finite_gpu;
  r.at("multi_all_finite").gpu.forward = all_finite_gpu;
}

}  // namespace braid::op::detail
