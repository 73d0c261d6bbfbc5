// CUDA kernels of Pooling (the CPU ones are in pooling.cc / pool_direct.cc) for channels-first
// data: one thread per output in the forward, one per input in the backward, which gathers from
// the windows holding its input (no atomics, so Add needs no zero-fill). Windows, averages'
// divisors and the max mask's encoding are the CPU kernels' own (pool_kernels.h).
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "pooling.h"

namespace braid::op::detail {
namespace {

template <class T>
__global__ void pool_forward_kernel(PoolGeom g, const T* x, T* y, T* mask, OpReq req) {
  const int64_t out = g.oh * g.ow;
  BRAID_GRID_STRIDE_LOOP(i, g.n * g.c * out) {
    const int64_t oy = i % out / g.ow, ox = i % g.ow;
    const T* plane = x + i / out * g.ih * g.iw;
    const PoolSpan r = pool_span(oy, g.ih, g.kh, g.sh, g.ph), c = pool_span(ox, g.iw, g.kw, g.sw, g.pw);
    T v;
    if (g.type == PoolType::Max) {
      int64_t best = r.begin * g.iw + c.begin;
      v = plane[best];
      for (int64_t h = r.begin; h < r.end; ++h)
        for (int64_t w = c.begin; w < c.end; ++w)
          if (plane[h * g.iw + w] > v) {  // the first maximum wins, as on the CPU
            v = plane[h * g.iw + w];
            best = h * g.iw + w;
          }
      mask[i] = encode_pool_index<T>(best);
    } else {
      v = 0;
      for (int64_t h = r.begin; h < r.end; ++h)
        for (int64_t w = c.begin; w < c.end; ++w) v += plane[h * g.iw + w];
      if (g.type == PoolType::Avg) v /= static_cast<T>(pool_window_size(g.include_pad, r, c));
    }
    if (req != OpReq::Null) cuda::store(y[i], req == OpReq::Add, v);
  }
}

// The outputs along one axis whose windows hold input position `h`: o·s - p <= h < o·s - p + k.
struct OutputRange {
  int64_t first, last;
};

__device__ inline OutputRange windows_holding(int64_t h, int64_t k, int64_t s, int64_t p, int64_t out) {
  const int64_t t = h + p - k + 1;  // o·s must reach this
  const int64_t last = (h + p) / s;
  return {t <= 0 ? 0 : (t + s - 1) / s, last < out - 1 ? last : out - 1};
}

// relu_y (max pooling only): the forward's output when the input was a relu's output; outputs
// with relu_y <= 0 pass no gradient, as on the CPU.
template <class T>
__global__ void pool_backward_kernel(PoolGeom g, const T* dy, const T* mask, const T* relu_y, T* dx, bool add) {
  const int64_t in = g.ih * g.iw, out = g.oh * g.ow;
  BRAID_GRID_STRIDE_LOOP(i, g.n * g.c * in) {
    const int64_t j = i % in, h = j / g.iw, w = j % g.iw, plane = i / in * out;
    const OutputRange rows = windows_holding(h, g.kh, g.sh, g.ph, g.oh);
    const OutputRange cols = windows_holding(w, g.kw, g.sw, g.pw, g.ow);
    T sum = 0;
    for (int64_t oy = rows.first; oy <= rows.last; ++oy)
      for (int64_t ox = cols.first; ox <= cols.last; ++ox) {
        const int64_t o = plane + oy * g.ow + ox;
        if (g.type == PoolType::Max) {
          if (decode_pool_index(mask[o]) == j && (!relu_y || relu_y[o] > T(0))) sum += dy[o];
        } else if (g.type == PoolType::Avg) {
          const PoolSpan r = pool_span(oy, g.ih, g.kh, g.sh, g.ph), c = pool_span(ox, g.iw, g.kw, g.sw, g.pw);
          sum += dy[o] / static_cast<T>(pool_window_size(g.include_pad, r, c));
        } else {
          sum += dy[o];
        }
      }
    cuda::store(dx[i], add, sum);
  }
}

PoolGeom gpu_pool_geom(const PoolParam& p, const Shape& data) {
  BRAID_CHECK(!p.channels_last, "operator Pooling: layouts NWC / NHWC are not supported on a GPU; use cpu() or ",
              "channels-first data");
  BRAID_CHECK(data.ndim() < 5, "operator Pooling: 3-D pooling is not supported on a GPU yet; use cpu()");
  return pool_geom(p, data);
}

}  // namespace

void register_pooling_gpu_kernels(Registry& r) {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const PoolGeom g = gpu_pool_geom(param<PoolParam>(pa), a.inputs[0].shape);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Pooling", {
      T* mask = g.type == PoolType::Max ? a.outputs[1].ptr<T>() : nullptr;
      if (mask || a.req[0] != OpReq::Null)
        pool_forward_kernel<T><<<cuda::blocks_for(g.y_size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            g, a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), mask, a.req[0]);
    });
    cuda::finish("Pooling");
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const PoolParam& p = param<PoolParam>(pa);
    const PoolGeom g = gpu_pool_geom(p, a.in_grads[0].shape);
    BRAID_REAL_TYPE_SWITCH(a.in_grads[0].dtype, T, "Pooling", {
      const T* mask = g.type == PoolType::Max ? a.outputs[1].ptr<T>() : nullptr;
      const T* relu_y = p.relu_grad ? a.outputs[0].ptr<T>() : nullptr;
      pool_backward_kernel<T><<<cuda::blocks_for(g.x_size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          g, a.out_grads[0].ptr<T>(), mask, relu_y, a.in_grads[0].ptr<T>(), a.req[0] == OpReq::Add);
    });
    cuda::finish("Pooling");
  };
  r.at("Pooling").gpu = k;
}

}  // namespace braid::op::detail
