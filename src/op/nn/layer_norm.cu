// CUDA kernels of LayerNorm (the CPU ones are in layer_norm.cc), in the CPU kernel's precision:
// one block per normalized row (statistics and sums in double), and for gamma's and beta's
// gradients one block per element of the axis, summing over the rows.
#include <cmath>

#include "channel_sum.cuh"
#include "layer_norm.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "LayerNorm";

// Per row: mean and std (saved where both pointers are given), and y = (x·scale + shift)·gamma
// + beta along it.
template <class T>
__global__ void forward_rows(const T* x, const T* gamma, const T* beta, T* y, T* saved_mean, T* saved_std, AxisSplit s,
                             double eps, OpReq req) {
  const double count = static_cast<double>(s.n);
  BRAID_BLOCK_ROW_LOOP(r, s.outer * s.inner) {
    const cuda::AxisRow row(s, r);
    double sum = 0;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) sum += x[row.at(i)];
    const double mean = cuda::block_reduce(sum, cuda::Sum{}) / count;
    double sq = 0;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const double d = x[row.at(i)] - mean;
      sq += d * d;
    }
    const double sd = std::sqrt(cuda::block_reduce(sq, cuda::Sum{}) / count + eps);
    const T scale = static_cast<T>(1 / sd), shift = static_cast<T>(-mean / sd);
    if (threadIdx.x == 0 && saved_mean) {
      saved_mean[r] = static_cast<T>(mean);
      saved_std[r] = static_cast<T>(sd);
    }
    if (req == OpReq::Null) continue;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const int64_t j = row.at(i);
      cuda::store(y[j], req == OpReq::Add, (x[j] * scale + shift) * gamma[i] + beta[i]);
    }
  }
}

// Per row: dx = g·gamma·rstd + xhat·gx + c0 (see layer_norm.cc), from the saved statistics and
// the gradients arriving at them (g_mean, g_std; null where none came).
template <class T>
__global__ void backward_rows(const T* x, const T* g, const T* gamma, const T* saved_mean, const T* saved_std,
                              const T* g_mean, const T* g_std, T* dx, AxisSplit s, bool add) {
  const double count = static_cast<double>(s.n);
  BRAID_BLOCK_ROW_LOOP(r, s.outer * s.inner) {
    const cuda::AxisRow row(s, r);
    const T mean = saved_mean[r], rstd = T(1) / saved_std[r];
    double sum_dxh = 0, sum_dxh_xh = 0;
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const int64_t j = row.at(i);
      sum_dxh += g[j] * gamma[i];
      sum_dxh_xh += g[j] * gamma[i] * ((x[j] - mean) * rstd);
    }
    sum_dxh = cuda::block_reduce(sum_dxh, cuda::Sum{});
    sum_dxh_xh = cuda::block_reduce(sum_dxh_xh, cuda::Sum{});
    const T gx = static_cast<T>((-sum_dxh_xh * rstd + (g_std ? g_std[r] : T(0))) / count);
    const T c0 = static_cast<T>((-sum_dxh * rstd + (g_mean ? g_mean[r] : T(0))) / count);
    for (int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const int64_t j = row.at(i);
      cuda::store(dx[j], add, g[j] * gamma[i] * rstd + (x[j] - mean) * rstd * gx + c0);
    }
  }
}

// dgamma[i] = Σ g·xhat and dbeta[i] = Σ g over the rows, at position i of the axis (each may be
// null).
template <class T>
__global__ void backward_params(const T* x, const T* g, const T* saved_mean, const T* saved_std, T* dgamma, T* dbeta,
                                AxisSplit s, bool add_gamma, bool add_beta) {
  BRAID_BLOCK_ROW_LOOP(i, s.n) {
    const double dg = channel_sum(s, i, [=](int64_t j) {
      const int64_t r = j / (s.n * s.inner) * s.inner + j % s.inner;
      const T xhat = (x[j] - saved_mean[r]) * (T(1) / saved_std[r]);
      return static_cast<double>(g[j] * xhat);
    });
    const double db = channel_sum(s, i, [g](int64_t j) { return static_cast<double>(g[j]); });
    if (threadIdx.x != 0) continue;
    if (dgamma) cuda::store(dgamma[i], add_gamma, static_cast<T>(dg));
    if (dbeta) cuda::store(dbeta[i], add_beta, static_cast<T>(db));
  }
}

template <class T>
void forward(const LayerNormParam& p, const ForwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis(kName, p.axis, data.shape));
  const bool save = writes_hidden(a, 1) && writes_hidden(a, 2);
  forward_rows<T><<<cuda::row_blocks(s.outer * s.inner), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      data.ptr<T>(), a.inputs[1].ptr<T>(), a.inputs[2].ptr<T>(), a.outputs[0].ptr<T>(),
      save ? a.outputs[1].ptr<T>() : nullptr, save ? a.outputs[2].ptr<T>() : nullptr, s, p.eps, a.req[0]);
}

template <class T>
void backward(const LayerNormParam& p, const BackwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis(kName, p.axis, data.shape));
  const T* x = data.ptr<T>();
  const T* g = a.out_grads[0].ptr<T>();
  const T* mean = a.outputs[1].ptr<T>();
  const T* std = a.outputs[2].ptr<T>();
  if (a.req[0] != OpReq::Null)
    backward_rows<T><<<cuda::row_blocks(s.outer * s.inner), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        x, g, a.inputs[1].ptr<T>(), mean, std, has_out_grad(a, 1) ? a.out_grads[1].ptr<T>() : nullptr,
        has_out_grad(a, 2) ? a.out_grads[2].ptr<T>() : nullptr, a.in_grads[0].ptr<T>(), s, a.req[0] == OpReq::Add);
  if (a.req[1] != OpReq::Null || a.req[2] != OpReq::Null)
    backward_params<T><<<cuda::row_blocks(s.n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        x, g, mean, std, a.req[1] == OpReq::Null ? nullptr : a.in_grads[1].ptr<T>(),
        a.req[2] == OpReq::Null ? nullptr : a.in_grads[2].ptr<T>(), s, a.req[1] == OpReq::Add, a.req[2] == OpReq::Add);
}

}  // namespace

void register_layer_norm_gpu_kernels(Registry& r) {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, { forward<T>(param<LayerNormParam>(pa), a); });
    cuda::finish(kName);
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, { backward<T>(param<LayerNormParam>(pa), a); });
    cuda::finish(kName);
  };
  r.at(kName).gpu = k;
}

}  // namespace braid::op::detail
