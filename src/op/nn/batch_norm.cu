// CUDA kernels of BatchNorm (the CPU ones are in batch_norm.cc), computing what the CPU kernel
// does in the same precision: per channel one block reduces in double (the batch statistics in
// forward, Σg and Σ(x - mean)·g in backward) and derives the channel's coefficients, then one
// element-wise pass applies them.
#include "batch_norm.h"
#include "channel_sum.cuh"
#include "nn_util.h"
#include "op/common/cuda_libs.cuh"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "BatchNorm";

// out[i] (=/+=) u[i]·cu[c] + v[i]·cv[c] + c0[c] for every element i of channel c (v may be null).
template <class T>
__global__ void channel_affine(const T* u, const T* cu, const T* v, const T* cv, const T* c0, T* out, AxisSplit s,
                               bool add) {
  BRAID_GRID_STRIDE_LOOP(i, s.outer * s.n * s.inner) {
    const int64_t c = i / s.inner % s.n;
    const T value = v ? u[i] * cu[c] + v[i] * cv[c] + c0[c] : u[i] * cu[c] + c0[c];
    cuda::store(out[i], add, value);
  }
}

struct ForwardChannels {
  const double eps, momentum;
  const bool batch, fix_gamma;
};

// Per channel: the statistics (batch ones, updating the moving ones, or the moving ones), the
// hidden outputs mean and invstd (each may be null), and y = x·scale + shift's coefficients.
template <class T>
__global__ void forward_channels(const T* x, const T* gamma, const T* beta, T* moving_mean, T* moving_var, T* mean_out,
                                 T* invstd_out, T* scale, T* shift, AxisSplit s, ForwardChannels f) {
  const double count = static_cast<double>(s.outer * s.inner);
  BRAID_BLOCK_ROW_LOOP(c, s.n) {
    double mean = 0, invstd = 0;
    if (f.batch) {
      double var = 0;
      if (count > 0) {
        mean = channel_sum(s, c, [x](int64_t i) { return static_cast<double>(x[i]); }) / count;
        var = channel_sum(s, c,
                          [x, mean](int64_t i) {
                            const double d = x[i] - mean;
                            return d * d;
                          }) /
              count;
      }
      invstd = to_invstd(var, f.eps);
      if (threadIdx.x == 0) {
        moving_mean[c] = static_cast<T>(moving_mean[c] * f.momentum + mean * (1 - f.momentum));
        moving_var[c] = static_cast<T>(moving_var[c] * f.momentum + var * (1 - f.momentum));
      }
    } else {
      mean = moving_mean[c];
      invstd = to_invstd(moving_var[c], f.eps);
    }
    if (threadIdx.x == 0) {
      const double sc = invstd * (f.fix_gamma ? 1.0 : static_cast<double>(gamma[c]));
      scale[c] = static_cast<T>(sc);
      shift[c] = static_cast<T>(beta[c] - mean * sc);
      if (mean_out) mean_out[c] = static_cast<T>(mean);
      if (invstd_out) invstd_out[c] = static_cast<T>(invstd);
    }
  }
}

template <class T>
void forward(const OpContext& ctx, const BatchNormParam& p, const ForwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis(kName, p.axis, data.shape));
  T* coefficients = static_cast<T*>(cuda::workspace(2 * s.n * sizeof(T)));  // scale, shift
  const ForwardChannels f{p.eps, p.momentum, ctx.is_train && !p.use_global_stats, p.fix_gamma};
  forward_channels<T><<<cuda::row_blocks(s.n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      data.ptr<T>(), a.inputs[1].ptr<T>(), a.inputs[2].ptr<T>(), a.aux[0].ptr<T>(), a.aux[1].ptr<T>(),
      writes_hidden(a, 1) ? a.outputs[1].ptr<T>() : nullptr, writes_hidden(a, 2) ? a.outputs[2].ptr<T>() : nullptr,
      coefficients, coefficients + s.n, s, f);
  if (a.req[0] != OpReq::Null)
    channel_affine<T><<<cuda::blocks_for(data.size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        data.ptr<T>(), coefficients, nullptr, nullptr, coefficients + s.n, a.outputs[0].ptr<T>(), s,
        a.req[0] == OpReq::Add);
}

struct BackwardChannels {
  const bool batch, fix_gamma;
  const OpReq req_gamma, req_beta;
};

// Per channel: Σg and Σ(x - mean)·g, the gradients of gamma and beta (each may be null), and
// dx = g·ga + x·xa + c0's coefficients (see batch_norm.cc for the derivation). g_mean and
// g_invstd are the gradients arriving at the hidden outputs (null where none came).
template <class T>
__global__ void backward_channels(const T* x, const T* g, const T* gamma, const T* mean, const T* invstd,
                                  const T* g_mean, const T* g_invstd, T* dgamma, T* dbeta, T* ga, T* xa, T* c0,
                                  AxisSplit s, BackwardChannels f) {
  const double count = static_cast<double>(s.outer * s.inner);
  BRAID_BLOCK_ROW_LOOP(c, s.n) {
    const double sum_g = channel_sum(s, c, [g](int64_t i) { return static_cast<double>(g[i]); });
    const T m = mean[c];
    const double dot = channel_sum(s, c, [x, g, m](int64_t i) { return (static_cast<double>(x[i]) - m) * g[i]; });
    if (threadIdx.x != 0) continue;
    const double is = invstd[c], iw = is * (f.fix_gamma ? 1.0 : static_cast<double>(gamma[c]));
    double xc = 0, cc = 0;
    if (f.batch && count > 0) {
      xc = -dot * is * is / count * iw;
      cc = -sum_g / count * iw;
      if (g_mean) cc += g_mean[c] / count;
      if (g_invstd) xc -= g_invstd[c] * is * is * is / count;
    }
    ga[c] = static_cast<T>(iw);
    xa[c] = static_cast<T>(xc);
    c0[c] = static_cast<T>(cc - m * xc);
    if (dgamma) cuda::store(dgamma[c], f.req_gamma == OpReq::Add, f.fix_gamma ? T(0) : static_cast<T>(dot * is));
    if (dbeta) cuda::store(dbeta[c], f.req_beta == OpReq::Add, static_cast<T>(sum_g));
  }
}

template <class T>
void backward(const OpContext& ctx, const BatchNormParam& p, const BackwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis(kName, p.axis, data.shape));
  const bool batch = ctx.is_train && !p.use_global_stats;
  auto grad_or_null = [&a](size_t k) { return a.req[k] == OpReq::Null ? nullptr : a.in_grads[k].ptr<T>(); };
  auto out_grad_or_null = [&a, batch](size_t k) {
    return batch && has_out_grad(a, k) ? a.out_grads[k].ptr<T>() : nullptr;
  };
  T* coefficients = static_cast<T*>(cuda::workspace(3 * s.n * sizeof(T)));  // ga, xa, c0
  const BackwardChannels f{batch, p.fix_gamma, a.req[1], a.req[2]};
  const T* x = data.ptr<T>();
  const T* g = a.out_grads[0].ptr<T>();
  backward_channels<T><<<cuda::row_blocks(s.n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      x, g, a.inputs[1].ptr<T>(), a.outputs[1].ptr<T>(), a.outputs[2].ptr<T>(), out_grad_or_null(1),
      out_grad_or_null(2), grad_or_null(1), grad_or_null(2), coefficients, coefficients + s.n, coefficients + 2 * s.n,
      s, f);
  if (a.req[0] != OpReq::Null)
    channel_affine<T><<<cuda::blocks_for(data.size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        g, coefficients, x, coefficients + s.n, coefficients + 2 * s.n, a.in_grads[0].ptr<T>(), s,
        a.req[0] == OpReq::Add);
}

}  // namespace

void register_batch_norm_gpu_kernels(Registry& r) {
  Kernels k;
  k.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, { forward<T>(ctx, param<BatchNormParam>(pa), a); });
    cuda::finish(kName);
  };
  k.backward = [](const OpContext& ctx, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, { backward<T>(ctx, param<BatchNormParam>(pa), a); });
    cuda::finish(kName);
  };
  r.at(kName).gpu = k;
}

}  // namespace braid::op::detail
