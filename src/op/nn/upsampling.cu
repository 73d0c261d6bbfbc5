// CUDA kernels of UpSampling (the CPU ones are in upsampling.cc): 'nearest' with one thread per
// output element of each input (its channel slice of the output, or the whole output summed),
// its gradient with one thread per input element summing its scale×scale outputs; 'bilinear'
// runs Deconvolution's GPU kernels, as on the CPU.
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "upsampling.h"

namespace braid::op::detail {
namespace {

// Input (batch, c, h, w) upsampled by `factor` into channels [offset, offset + c) of the output
// (batch, oc, oh, ow).
struct NearestGeom {
  int64_t batch, c, h, w, factor, oc, oh, ow, offset;
  NearestGeom(const Shape& in, const Shape& out, int64_t offset)
      : batch(in[0]),
        c(in[1]),
        h(in[2]),
        w(in[3]),
        factor(out[2] / in[2]),
        oc(out[1]),
        oh(out[2]),
        ow(out[3]),
        offset(offset) {}
  __device__ int64_t out_at(int64_t b, int64_t ch, int64_t i, int64_t j) const {
    return ((b * oc + offset + ch) * oh + i) * ow + j;
  }
};

template <class T>
__global__ void nearest_forward(const T* x, T* y, NearestGeom g, bool add) {
  BRAID_GRID_STRIDE_LOOP(k, g.batch * g.c * g.oh * g.ow) {
    const int64_t j = k % g.ow, i = k / g.ow % g.oh, ch = k / (g.ow * g.oh) % g.c, b = k / (g.ow * g.oh * g.c);
    cuda::store(y[g.out_at(b, ch, i, j)], add, x[((b * g.c + ch) * g.h + i / g.factor) * g.w + j / g.factor]);
  }
}

template <class T>
__global__ void nearest_backward(const T* dy, T* dx, NearestGeom g, bool add) {
  BRAID_GRID_STRIDE_LOOP(k, g.batch * g.c * g.h * g.w) {
    const int64_t x = k % g.w, y = k / g.w % g.h, ch = k / (g.w * g.h) % g.c, b = k / (g.w * g.h * g.c);
    T sum = 0;
    for (int64_t i = y * g.factor; i < (y + 1) * g.factor; ++i)
      for (int64_t j = x * g.factor; j < (x + 1) * g.factor; ++j) sum += dy[g.out_at(b, ch, i, j)];
    cuda::store(dx[k], add, sum);
  }
}

void forward(const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
  const auto& p = param<UpSamplingParam>(pa);
  if (p.bilinear) return p.deconv->kernels(ctx.ctx).forward(ctx, p.deconv_param, a);
  if (a.req[0] == OpReq::Null) return;
  const Shape& out = a.outputs[0].shape;
  BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, "UpSampling", {
    int64_t offset = 0;
    for (size_t k = 0; k < a.inputs.size(); ++k) {
      const NearestGeom g(a.inputs[k].shape, out, offset);
      // Summed inputs after the first add to it; concatenated ones fill their own channels.
      const bool add = a.req[0] == OpReq::Add || (p.sum && k > 0);
      nearest_forward<T><<<cuda::blocks_for(g.batch * g.c * g.oh * g.ow), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[k].ptr<T>(), a.outputs[0].ptr<T>(), g, add);
      if (!p.sum) offset += g.c;
    }
  });
  cuda::finish("UpSampling");
}

void backward(const OpContext& ctx, const std::any& pa, const BackwardArgs& a) {
  const auto& p = param<UpSamplingParam>(pa);
  if (p.bilinear) return p.deconv->kernels(ctx.ctx).backward(ctx, p.deconv_param, a);
  const Shape& out = a.out_grads[0].shape;
  BRAID_REAL_TYPE_SWITCH(a.out_grads[0].dtype, T, "UpSampling", {
    int64_t offset = 0;
    for (size_t k = 0; k < a.inputs.size(); ++k) {
      const NearestGeom g(a.inputs[k].shape, out, offset);
      if (!p.sum) offset += g.c;
      if (a.req[k] == OpReq::Null) continue;
      nearest_backward<T><<<cuda::blocks_for(g.batch * g.c * g.h * g.w), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.out_grads[0].ptr<T>(), a.in_grads[k].ptr<T>(), g, a.req[k] == OpReq::Add);
    }
  });
  cuda::finish("UpSampling");
}

}  // namespace

void register_upsampling_gpu_kernels(Registry& r) { r.at("UpSampling").gpu = Kernels{forward, backward}; }

}  // namespace braid::op::detail
