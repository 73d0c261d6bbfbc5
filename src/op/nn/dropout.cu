// CUDA kernels of Dropout (the CPU ones are in dropout.cc). The decisions cannot follow the CPU's
// sequential generator: each call draws one seed from the op's host generator (ctx.rng, so seeded
// runs repeat) and every element hashes (seed, its index in the shape with `axes` reduced to 1)
// into 32 random bits, dropped below p·2^32 as on the CPU. Backward multiplies by the saved mask.
#include <cmath>

#include "dropout.h"
#include "nn_util.h"
#include "op/common/cuda_launch.cuh"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "Dropout";
constexpr int kMaxDims = 16;

// Where element i's decision sits in the array with the shared axes reduced to 1: the sum of its
// coordinates times that array's strides (0 along the shared axes).
struct DecisionIndex {
  int ndim = 0;
  int64_t dims[kMaxDims] = {}, strides[kMaxDims] = {};

  __device__ int64_t of(int64_t i) const {
    int64_t r = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      r += i % dims[d] * strides[d];
      i /= dims[d];
    }
    return r;
  }
};

DecisionIndex decision_index(const DropoutParam& p, const Shape& shape) {
  DecisionIndex idx;
  idx.ndim = shape.ndim();
  BRAID_CHECK(idx.ndim <= kMaxDims, "operator Dropout: data of ", idx.ndim, " dimensions exceeds the GPU kernel's ",
              kMaxDims, "; use cpu()");
  std::vector<bool> shared(static_cast<size_t>(idx.ndim), false);
  for (int64_t ax : p.axes) shared[static_cast<size_t>(checked_axis(kName, static_cast<int>(ax), shape))] = true;
  int64_t step = 1;
  for (int d = idx.ndim - 1; d >= 0; --d) {
    idx.dims[d] = shape[d];
    if (!shared[static_cast<size_t>(d)]) {
      idx.strides[d] = step;
      step *= shape[d];
    }
  }
  return idx;
}

// SplitMix64's finalizer over the seed and the counter: 32 well-mixed bits per (seed, r).
__device__ inline uint64_t random_bits(uint64_t seed, uint64_t r) {
  uint64_t z = seed + (r + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) >> 32;
}

// mask[i] = 0·scale (dropped: 0, NaN for p = 1 as MXNet) or scale; all 1 when not `active`.
// y (=/+=) x·mask unless req is Null.
template <class T>
__global__ void dropout_forward(const T* x, T* y, T* mask, int64_t n, DecisionIndex idx, uint64_t seed,
                                uint64_t threshold, T scale, bool active, OpReq req) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const T m = !active ? T(1) : random_bits(seed, idx.of(i)) < threshold ? T(0) * scale : scale;
    mask[i] = m;
    if (req != OpReq::Null) cuda::store(y[i], req == OpReq::Add, x[i] * m);
  }
}

template <class T>
__global__ void dropout_backward(const T* g, const T* mask, T* dx, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(dx[i], add, g[i] * mask[i]); }
}

}  // namespace

void register_dropout_gpu_kernels(Registry& r) {
  Kernels k;
  k.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const DropoutParam& p = param<DropoutParam>(pa);
    const bool active = (p.always || ctx.is_train) && p.p > 0;
    uint64_t seed = 0;
    if (active) {
      BRAID_CHECK(ctx.rng, "operator Dropout: no random generator was given");
      seed = (*ctx.rng)();
    }
    const TBlob& data = a.inputs[0];
    const int64_t n = data.size();
    const auto threshold = static_cast<uint64_t>(std::ldexp(p.p, 32));
    BRAID_REAL_TYPE_SWITCH(data.dtype, T, kName, {
      dropout_forward<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          data.ptr<T>(), a.outputs[0].ptr<T>(), a.outputs[1].ptr<T>(), n, decision_index(p, data.shape), seed,
          threshold, static_cast<T>(1 / (1 - p.p)), active, a.req[0]);
    });
    cuda::finish(kName);
  };
  k.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.outputs[1].size();
    BRAID_REAL_TYPE_SWITCH(a.outputs[1].dtype, T, kName, {
      dropout_backward<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.out_grads[0].ptr<T>(), a.outputs[1].ptr<T>(), a.in_grads[0].ptr<T>(), n, a.req[0] == OpReq::Add);
    });
    cuda::finish(kName);
  };
  r.at(kName).gpu = k;
}

}  // namespace braid::op::detail
