// CUDA kernels of Pooling (the CPU ones are in pooling.cc / pool_direct.cc), 1-D, 2-D and 3-D,
// channels first or last: one thread per output in the forward, one per input in the backward,
// which gathers from the windows holding its input (no atomics, so Add needs no zero-fill). Windows, averages'
// divisors and the max mask's encoding are the CPU kernels' own (pool_kernels.h). float16 and
// bfloat16 are compared and summed in float, their mask float32 (pooling.cc).
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "pooling.h"

namespace braid::op::detail {
namespace {

// Where an element of a (batch, channel) plane lives, as the CPU kernels see it (pool_direct.cc):
// the plane's first input and output elements and the distance between neighbours within it (1
// channels-first, c channels-last), found from an element's flat index and the plane's pixels.
struct PlaneOf {
  int64_t plane, pixel;  // the plane (b·c + channel) and the element's pixel within it

  __device__ PlaneOf(const PoolGeom& g, int64_t i, int64_t pixels) {
    if (!g.channels_last) {
      plane = i / pixels;
      pixel = i % pixels;
    } else {  // i = (b·pixels + pixel)·c + channel
      const int64_t rest = i / g.c;
      plane = rest / pixels * g.c + i % g.c;
      pixel = rest % pixels;
    }
  }
  __device__ int64_t x_base(const PoolGeom& g) const { return base(g, g.in_pixels()); }
  __device__ int64_t y_base(const PoolGeom& g) const { return base(g, g.out_pixels()); }
  __device__ static int64_t step(const PoolGeom& g) { return g.channels_last ? g.c : 1; }

 private:
  __device__ int64_t base(const PoolGeom& g, int64_t pixels) const {
    return g.channels_last ? plane / g.c * pixels * g.c + plane % g.c : plane * pixels;
  }
};

template <class T, class C = cuda::compute_t<T>>
__global__ void pool_forward_kernel(PoolGeom g, const T* x, T* y, C* mask, OpReq req) {
  using cuda::load_value;
  BRAID_GRID_STRIDE_LOOP(i, g.y_size()) {
    const PlaneOf at(g, i, g.out_pixels());
    const int64_t step = PlaneOf::step(g), xb = at.x_base(g);
    const int64_t ox = at.pixel % g.ow, oy = at.pixel / g.ow % g.oh, oz = at.pixel / (g.ow * g.oh);
    const PoolSpan d = pool_span(oz, g.id, g.kd, g.sd, g.pd), r = pool_span(oy, g.ih, g.kh, g.sh, g.ph),
                   c = pool_span(ox, g.iw, g.kw, g.sw, g.pw);
    C v;
    if (g.type == PoolType::Max) {
      int64_t best = (d.begin * g.ih + r.begin) * g.iw + c.begin;
      v = load_value(x[xb + best * step]);
      for (int64_t z = d.begin; z < d.end; ++z)
        for (int64_t h = r.begin; h < r.end; ++h)
          for (int64_t w = c.begin; w < c.end; ++w) {
            const int64_t q = (z * g.ih + h) * g.iw + w;
            if (load_value(x[xb + q * step]) > v) {  // the first maximum wins, as on the CPU
              v = load_value(x[xb + q * step]);
              best = q;
            }
          }
      mask[i] = encode_pool_index<C>(best);
    } else {
      v = 0;
      for (int64_t z = d.begin; z < d.end; ++z)
        for (int64_t h = r.begin; h < r.end; ++h)
          for (int64_t w = c.begin; w < c.end; ++w) v += load_value(x[xb + ((z * g.ih + h) * g.iw + w) * step]);
      if (g.type == PoolType::Avg) v /= static_cast<C>(pool_window_size(g.include_pad, d, r, c));
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

// One thread per input element gathers from the windows holding it. relu_y (max pooling only):
// the forward's output when the input was a relu's output; outputs with relu_y <= 0 pass no
// gradient, as on the CPU.
template <class T, class C = cuda::compute_t<T>>
__global__ void pool_backward_kernel(PoolGeom g, const T* dy, const C* mask, const T* relu_y, T* dx, bool add) {
  using cuda::load_value;
  BRAID_GRID_STRIDE_LOOP(i, g.x_size()) {
    const PlaneOf at(g, i, g.in_pixels());
    const int64_t step = PlaneOf::step(g), yb = at.y_base(g), q = at.pixel;
    const int64_t w = q % g.iw, h = q / g.iw % g.ih, z = q / (g.iw * g.ih);
    const OutputRange deps = windows_holding(z, g.kd, g.sd, g.pd, g.od);
    const OutputRange rows = windows_holding(h, g.kh, g.sh, g.ph, g.oh);
    const OutputRange cols = windows_holding(w, g.kw, g.sw, g.pw, g.ow);
    C sum = 0;
    for (int64_t oz = deps.first; oz <= deps.last; ++oz)
      for (int64_t oy = rows.first; oy <= rows.last; ++oy)
        for (int64_t ox = cols.first; ox <= cols.last; ++ox) {
          const int64_t o = yb + ((oz * g.oh + oy) * g.ow + ox) * step;
          if (g.type == PoolType::Max) {
            if (decode_pool_index(mask[o]) == q && (!relu_y || load_value(relu_y[o]) > C(0))) sum += load_value(dy[o]);
          } else if (g.type == PoolType::Avg) {
            const PoolSpan d = pool_span(oz, g.id, g.kd, g.sd, g.pd), r = pool_span(oy, g.ih, g.kh, g.sh, g.ph),
                           c = pool_span(ox, g.iw, g.kw, g.sw, g.pw);
            sum += load_value(dy[o]) / static_cast<C>(pool_window_size(g.include_pad, d, r, c));
          } else {
            sum += load_value(dy[o]);
          }
        }
    cuda::store(dx[i], add, sum);
  }
}

}  // namespace

void register_pooling_gpu_kernels(Registry& r) {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const PoolGeom g = pool_geom(param<PoolParam>(pa), a.inputs[0].shape);
    BRAID_CHECK(g.type != PoolType::Lp, "operator Pooling: pool_type='lp' runs on the CPU only; pool on cpu()");
    cuda::with_float_type(a.inputs[0].dtype, "Pooling", [&](auto t) {
      using T = decltype(t);
      using C = cuda::compute_t<T>;
      C* mask = g.type == PoolType::Max ? a.outputs[1].ptr<C>() : nullptr;
      if (mask || a.req[0] != OpReq::Null)
        pool_forward_kernel<T><<<cuda::blocks_for(g.y_size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            g, a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), mask, a.req[0]);
    });
    cuda::finish("Pooling");
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const PoolParam& p = param<PoolParam>(pa);
    const PoolGeom g = pool_geom(p, a.in_grads[0].shape);
    cuda::with_float_type(a.in_grads[0].dtype, "Pooling", [&](auto t) {
      using T = decltype(t);
      using C = cuda::compute_t<T>;
      const C* mask = g.type == PoolType::Max ? a.outputs[1].ptr<C>() : nullptr;
      const T* relu_y = p.relu_grad ? a.outputs[0].ptr<T>() : nullptr;
      pool_backward_kernel<T><<<cuda::blocks_for(g.x_size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          g, a.out_grads[0].ptr<T>(), mask, relu_y, a.in_grads[0].ptr<T>(), a.req[0] == OpReq::Add);
    });
    cuda::finish("Pooling");
  };
  r.at("Pooling").gpu = k;
}

}  // namespace braid::op::detail
