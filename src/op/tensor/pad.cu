// CUDA kernels of pad (the CPU ones are in pad.cc): one thread per output element finds the input
// element it copies (pad_source, per axis); the gradient adds each output's back into that
// element, atomically since the edge and reflect modes copy one element to several outputs.
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "pad.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

constexpr int kMaxPadDims = 5;

struct PadGeom {
  int nd = 0;
  int64_t in[kMaxPadDims], out[kMaxPadDims], before[kMaxPadDims];
  PadMode mode = PadMode::Constant;
};

PadGeom pad_geom(const PadParam& p, const Shape& in, const Shape& out) {
  PadGeom g;
  g.nd = in.ndim();  // 4 or 5: the CPU's shape inference checked it
  g.mode = p.mode;
  for (int k = 0; k < g.nd; ++k) {
    g.in[k] = in[k];
    g.out[k] = out[k];
    g.before[k] = p.pad_width[2 * static_cast<size_t>(k)];
  }
  return g;
}

// The offset in the input of what output element o copies; -1 for the constant.
__device__ int64_t source_offset(const PadGeom& g, int64_t o) {
  int64_t from = 0, stride = 1;
  for (int k = g.nd - 1; k >= 0; --k) {
    const int64_t i = pad_source(o % g.out[k], g.in[k], g.before[k], g.mode);
    if (i < 0) return -1;
    o /= g.out[k];
    from += i * stride;
    stride *= g.in[k];
  }
  return from;
}

template <class T>
__global__ void pad_forward(const T* x, T* y, PadGeom g, int64_t n, T fill, bool add) {
  BRAID_GRID_STRIDE_LOOP(o, n) {
    const int64_t from = source_offset(g, o);
    cuda::store(y[o], add, from < 0 ? fill : x[from]);
  }
}

template <class T>
__global__ void pad_backward(const T* dy, T* dx, PadGeom g, int64_t n) {
  BRAID_GRID_STRIDE_LOOP(o, n) {
    const int64_t from = source_offset(g, o);
    if (from >= 0) atomicAdd(dx + from, dy[o]);
  }
}

void forward(const OpContext&, const std::any& pa, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const auto& p = param<PadParam>(pa);
  const PadGeom g = pad_geom(p, a.inputs[0].shape, a.outputs[0].shape);
  const int64_t n = a.outputs[0].size();
  BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "pad", {
    pad_forward<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), g, n, static_cast<T>(p.constant_value), a.req[0] == OpReq::Add);
  });
  cuda::finish("pad");
}

void backward(const OpContext&, const std::any& pa, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const PadGeom g = pad_geom(param<PadParam>(pa), a.in_grads[0].shape, a.out_grads[0].shape);
  if (a.req[0] == OpReq::Write) fill_zero_gpu(a.in_grads[0]);
  const int64_t n = a.out_grads[0].size();
  BRAID_REAL_TYPE_SWITCH(a.in_grads[0].dtype, T, "pad", {
    pad_backward<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(a.out_grads[0].ptr<T>(),
                                                                                        a.in_grads[0].ptr<T>(), g, n);
  });
  cuda::finish("pad");
}

}  // namespace

void register_pad_gpu_kernels(Registry& r) { r.at("pad").gpu = Kernels{forward, backward}; }

}  // namespace braid::op::detail
