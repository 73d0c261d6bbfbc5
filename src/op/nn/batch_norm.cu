// CUDA kernels of BatchNorm (the CPU ones are in batch_norm.cc). Three passes: each channel's
// elements are split among several blocks, which sum their part in double (forward Σx and Σx²,
// backward Σg and Σx·g); one thread per channel adds the parts up and derives the channel's
// coefficients (and updates the moving statistics); one element-wise pass applies them. float16
// and bfloat16 arrays are read as they are, their coefficients kept in float.
#include <algorithm>

#include "batch_norm.h"
#include "channel_sum.cuh"
#include "nn_util.h"
#include "op/common/cuda_libs.cuh"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "BatchNorm";

using cuda::load_value;
using cuda::store_value;

// How a channel's elements are split among blocks: enough blocks in all to fill a large GPU, and
// no part smaller than a few elements per thread.
struct ChannelParts {
  int64_t per_channel, part_size;

  explicit ChannelParts(const AxisSplit& s) {
    constexpr int64_t kWantedBlocks = 1024, kMinPart = 4 * cuda::kThreadsPerBlock;
    const int64_t count = s.outer * s.inner;
    per_channel = std::clamp<int64_t>((kWantedBlocks + s.n - 1) / s.n, 1, std::max<int64_t>(1, count / kMinPart));
    part_size = (count + per_channel - 1) / per_channel;
  }
  int64_t blocks(const AxisSplit& s) const { return s.n * per_channel; }
};

// parts[c·per_channel + k] = (Σ u, Σ u·v) over the k-th part of channel c's elements, v = u where
// v is null: (Σx, Σx²) for the forward, (Σg, Σg·x) for the backward.
template <class T>
__global__ void channel_part_sums(const T* u, const T* v, AxisSplit s, ChannelParts p, double2* parts) {
  const int64_t count = s.outer * s.inner;
  for (int64_t b = blockIdx.x; b < s.n * p.per_channel; b += gridDim.x) {
    const int64_t c = b / p.per_channel, begin = b % p.per_channel * p.part_size;
    const int64_t end = begin + p.part_size < count ? begin + p.part_size : count;
    double su = 0, suv = 0;
    for (int64_t t = begin + threadIdx.x; t < end; t += blockDim.x) {
      const int64_t i = channel_element(s, c, t);
      const double ui = load_value(u[i]);
      su += ui;
      suv += ui * (v ? static_cast<double>(load_value(v[i])) : ui);
    }
    su = cuda::block_reduce(su, cuda::Sum{});
    suv = cuda::block_reduce(suv, cuda::Sum{});
    if (threadIdx.x == 0) parts[b] = make_double2(su, suv);
  }
}

__device__ inline double2 channel_total(const double2* parts, int64_t c, int64_t per_channel) {
  double2 total = make_double2(0, 0);
  for (int64_t k = 0; k < per_channel; ++k) {
    total.x += parts[c * per_channel + k].x;
    total.y += parts[c * per_channel + k].y;
  }
  return total;
}

// Enqueues channel_part_sums and gives its parts, in the worker's workspace after `reserved` bytes.
template <class T>
const double2* part_sums(const T* u, const T* v, const AxisSplit& s, const ChannelParts& p, void* workspace,
                         size_t reserved) {
  auto* parts = reinterpret_cast<double2*>(static_cast<char*>(workspace) + reserved);
  channel_part_sums<T><<<cuda::row_blocks(p.blocks(s)), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(u, v, s, p, parts);
  return parts;
}

// Room for n values of C, rounded up so that what follows is aligned for double2.
template <class C>
size_t aligned_bytes(int64_t n) {
  return (static_cast<size_t>(n) * sizeof(C) + 15) / 16 * 16;
}

// out[i] (=/+=) u[i]·cu[c] + v[i]·cv[c] + c0[c] for every element i of channel c (v may be null);
// the coefficients in C, T's compute type.
template <class T, class C>
__global__ void channel_affine(const T* u, const C* cu, const T* v, const C* cv, const C* c0, T* out, AxisSplit s,
                               bool add) {
  BRAID_GRID_STRIDE_LOOP(i, s.outer * s.n * s.inner) {
    const int64_t c = i / s.inner % s.n;
    const C value = v ? load_value(u[i]) * cu[c] + load_value(v[i]) * cv[c] + c0[c] : load_value(u[i]) * cu[c] + c0[c];
    cuda::store(out[i], add, value);
  }
}

struct ForwardChannels {
  const double eps, momentum;
  const bool batch, fix_gamma;
};

// Per channel: the statistics (batch ones from the parts, updating the moving ones, or the moving
// ones), the hidden outputs mean and invstd (each may be null), and y = x·scale + shift's
// coefficients.
template <class T, class C>
__global__ void forward_channels(const double2* parts, ChannelParts p, const T* gamma, const T* beta, T* moving_mean,
                                 T* moving_var, T* mean_out, T* invstd_out, C* scale, C* shift, AxisSplit s,
                                 ForwardChannels f) {
  const double count = static_cast<double>(s.outer * s.inner);
  BRAID_GRID_STRIDE_LOOP(c, s.n) {
    double mean = 0, invstd = 0;
    if (f.batch) {
      double var = 0;
      if (count > 0) {
        const double2 sums = channel_total(parts, c, p.per_channel);
        mean = sums.x / count;
        var = fmax(sums.y / count - mean * mean, 0.0);
      }
      invstd = to_invstd(var, f.eps);
      moving_mean[c] = store_value<T>(load_value(moving_mean[c]) * f.momentum + mean * (1 - f.momentum));
      moving_var[c] = store_value<T>(load_value(moving_var[c]) * f.momentum + var * (1 - f.momentum));
    } else {
      mean = load_value(moving_mean[c]);
      invstd = to_invstd(load_value(moving_var[c]), f.eps);
    }
    const double sc = invstd * (f.fix_gamma ? 1.0 : static_cast<double>(load_value(gamma[c])));
    scale[c] = static_cast<C>(sc);
    shift[c] = static_cast<C>(load_value(beta[c]) - mean * sc);
    if (mean_out) mean_out[c] = store_value<T>(mean);
    if (invstd_out) invstd_out[c] = store_value<T>(invstd);
  }
}

template <class T>
void forward(const OpContext& ctx, const BatchNormParam& p, const ForwardArgs& a) {
  using C = cuda::compute_t<T>;
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis(kName, p.axis, data.shape));
  const ChannelParts parts(s);
  const size_t reserved = aligned_bytes<C>(2 * s.n);  // scale, shift, then the parts
  void* ws = cuda::workspace(reserved + static_cast<size_t>(parts.blocks(s)) * sizeof(double2));
  C* coefficients = static_cast<C*>(ws);
  const ForwardChannels f{p.eps, p.momentum, ctx.is_train && !p.use_global_stats, p.fix_gamma};
  const double2* sums = f.batch ? part_sums<T>(data.ptr<T>(), nullptr, s, parts, ws, reserved) : nullptr;
  forward_channels<T, C><<<cuda::blocks_for(s.n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      sums, parts, a.inputs[1].ptr<T>(), a.inputs[2].ptr<T>(), a.aux[0].ptr<T>(), a.aux[1].ptr<T>(),
      writes_hidden(a, 1) ? a.outputs[1].ptr<T>() : nullptr, writes_hidden(a, 2) ? a.outputs[2].ptr<T>() : nullptr,
      coefficients, coefficients + s.n, s, f);
  if (a.req[0] != OpReq::Null)
    channel_affine<T, C><<<cuda::blocks_for(data.size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        data.ptr<T>(), coefficients, nullptr, nullptr, coefficients + s.n, a.outputs[0].ptr<T>(), s,
        a.req[0] == OpReq::Add);
}

struct BackwardChannels {
  const bool batch, fix_gamma;
  const OpReq req_gamma, req_beta;
};

// Per channel, from Σg and Σg·x (the parts): Σ(x - mean)·g, the gradients of gamma and beta (each
// may be null), and dx = g·ga + x·xa + c0's coefficients (see batch_norm.cc for the derivation).
// g_mean and g_invstd are the gradients arriving at the hidden outputs (null where none came).
template <class T, class C>
__global__ void backward_channels(const double2* parts, ChannelParts p, const T* gamma, const T* mean, const T* invstd,
                                  const T* g_mean, const T* g_invstd, T* dgamma, T* dbeta, C* ga, C* xa, C* c0,
                                  AxisSplit s, BackwardChannels f) {
  const double count = static_cast<double>(s.outer * s.inner);
  BRAID_GRID_STRIDE_LOOP(c, s.n) {
    const double2 sums = channel_total(parts, c, p.per_channel);
    const double m = load_value(mean[c]), sum_g = sums.x, dot = sums.y - m * sums.x;
    const double is = load_value(invstd[c]);
    const double iw = is * (f.fix_gamma ? 1.0 : static_cast<double>(load_value(gamma[c])));
    double xc = 0, cc = 0;
    if (f.batch && count > 0) {
      xc = -dot * is * is / count * iw;
      cc = -sum_g / count * iw;
      if (g_mean) cc += load_value(g_mean[c]) / count;
      if (g_invstd) xc -= load_value(g_invstd[c]) * is * is * is / count;
    }
    ga[c] = static_cast<C>(iw);
    xa[c] = static_cast<C>(xc);
    c0[c] = static_cast<C>(cc - m * xc);
    if (dgamma) cuda::store(dgamma[c], f.req_gamma == OpReq::Add, f.fix_gamma ? C(0) : static_cast<C>(dot * is));
    if (dbeta) cuda::store(dbeta[c], f.req_beta == OpReq::Add, static_cast<C>(sum_g));
  }
}

template <class T>
void backward(const OpContext& ctx, const BatchNormParam& p, const BackwardArgs& a) {
  using C = cuda::compute_t<T>;
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis(kName, p.axis, data.shape));
  const bool batch = ctx.is_train && !p.use_global_stats;
  auto grad_or_null = [&a](size_t k) { return a.req[k] == OpReq::Null ? nullptr : a.in_grads[k].ptr<T>(); };
  auto out_grad_or_null = [&a, batch](size_t k) {
    return batch && has_out_grad(a, k) ? a.out_grads[k].ptr<T>() : nullptr;
  };
  const ChannelParts parts(s);
  const size_t reserved = aligned_bytes<C>(3 * s.n);  // ga, xa, c0, then the parts
  void* ws = cuda::workspace(reserved + static_cast<size_t>(parts.blocks(s)) * sizeof(double2));
  C* coefficients = static_cast<C*>(ws);
  const BackwardChannels f{batch, p.fix_gamma, a.req[1], a.req[2]};
  const T* x = data.ptr<T>();
  const T* g = a.out_grads[0].ptr<T>();
  const double2* sums = part_sums<T>(g, x, s, parts, ws, reserved);
  backward_channels<T, C><<<cuda::blocks_for(s.n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      sums, parts, a.inputs[1].ptr<T>(), a.outputs[1].ptr<T>(), a.outputs[2].ptr<T>(), out_grad_or_null(1),
      out_grad_or_null(2), grad_or_null(1), grad_or_null(2), coefficients, coefficients + s.n, coefficients + 2 * s.n,
      s, f);
  if (a.req[0] != OpReq::Null)
    channel_affine<T, C><<<cuda::blocks_for(data.size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        g, coefficients, x, coefficients + s.n, coefficients + 2 * s.n, a.in_grads[0].ptr<T>(), s,
        a.req[0] == OpReq::Add);
}

}  // namespace

void register_batch_norm_gpu_kernels(Registry& r) {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    cuda::with_float_type(a.inputs[0].dtype, kName,
                          [&](auto t) { forward<decltype(t)>(ctx, param<BatchNormParam>(pa), a); });
    cuda::finish(kName);
  };
  k.backward = [](const OpContext& ctx, const std::any& pa, const BackwardArgs& a) {
    cuda::with_float_type(a.inputs[0].dtype, kName,
                          [&](auto t) { backward<decltype(t)>(ctx, param<BatchNormParam>(pa), a); });
    cuda::finish(kName);
  };
  r.at(kName).gpu = k;
}

}  // namespace braid::op::detail
