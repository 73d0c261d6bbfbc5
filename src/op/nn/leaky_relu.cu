// CUDA kernels of LeakyReLU (the CPU ones are in leaky_relu.cc): leaky, elu, selu and gelu from
// the shared functors (leaky_relu.h), and prelu with its gamma gradient summed per gamma element
// in double as on the CPU. rrelu's random slopes are not drawn on the GPU.
#include "channel_sum.cuh"
#include "leaky_relu.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "LeakyReLU";

template <class Fn, class T>
__global__ void act_forward(Fn fn, const T* x, T* y, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(y[i], add, fn.f(x[i])); }
}

template <class Fn, class T>
__global__ void act_backward(Fn fn, const T* x, const T* y, const T* g, T* dx, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(dx[i], add, static_cast<T>(g[i] * fn.df(x[i], y[i]))); }
}

template <class T>
__global__ void prelu_forward(const T* x, const T* gamma, T* y, AxisSplit s, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, s.outer * s.n * s.inner) {
    cuda::store(y[i], add, x[i] > T(0) ? x[i] : gamma[i / s.inner % s.n] * x[i]);
  }
}

template <class T>
__global__ void prelu_backward_data(const T* x, const T* gamma, const T* g, T* dx, AxisSplit s, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, s.outer * s.n * s.inner) {
    cuda::store(dx[i], add, x[i] > T(0) ? g[i] : gamma[i / s.inner % s.n] * g[i]);
  }
}

// dgamma[c] (=/+=) Σ g·x over the non-positive x of gamma element c.
template <class T>
__global__ void prelu_backward_gamma(const T* x, const T* g, T* dgamma, AxisSplit s, bool add) {
  BRAID_BLOCK_ROW_LOOP(c, s.n) {
    const double sum =
        channel_sum(s, c, [x, g](int64_t i) { return x[i] <= T(0) ? static_cast<double>(g[i] * x[i]) : 0.0; });
    if (threadIdx.x == 0) cuda::store(dgamma[c], add, static_cast<T>(sum));
  }
}

// Calls f(functor) for the element-wise activations.
template <class T, class F>
void with_functor(const LeakyParam& p, F&& f) {
  const T slope = static_cast<T>(p.slope);
  switch (p.act) {
    case kLeaky:
      return f(LeakyFn<T>{slope});
    case kELU:
      return f(EluFn<T>{slope});
    case kSELU:
      return f(SeluFn<T>{});
    default:
      return f(GeluFn<T>{});
  }
}

template <class T>
void forward(const LeakyParam& p, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const TBlob& data = a.inputs[0];
  const int64_t n = data.size();
  const bool add = a.req[0] == OpReq::Add;
  if (p.act == kPReLU) {
    prelu_forward<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        data.ptr<T>(), a.inputs[1].ptr<T>(), a.outputs[0].ptr<T>(), gamma_split(data.shape, a.inputs[1].shape), add);
    return;
  }
  with_functor<T>(p, [&](auto fn) {
    act_forward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(fn, data.ptr<T>(),
                                                                                    a.outputs[0].ptr<T>(), n, add);
  });
}

template <class T>
void backward(const LeakyParam& p, const BackwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const int64_t n = data.size();
  const T* x = data.ptr<T>();
  const T* g = a.out_grads[0].ptr<T>();
  if (p.act == kPReLU) {
    const AxisSplit s = gamma_split(data.shape, a.inputs[1].shape);
    const T* gamma = a.inputs[1].ptr<T>();
    if (a.req[0] != OpReq::Null)
      prelu_backward_data<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          x, gamma, g, a.in_grads[0].ptr<T>(), s, a.req[0] == OpReq::Add);
    if (a.req[1] != OpReq::Null)
      prelu_backward_gamma<T><<<cuda::row_blocks(s.n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          x, g, a.in_grads[1].ptr<T>(), s, a.req[1] == OpReq::Add);
    return;
  }
  if (a.req[0] == OpReq::Null) return;
  with_functor<T>(p, [&](auto fn) {
    act_backward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        fn, x, a.outputs[0].ptr<T>(), g, a.in_grads[0].ptr<T>(), n, a.req[0] == OpReq::Add);
  });
}

const LeakyParam& gpu_param(const std::any& pa) {
  const LeakyParam& p = param<LeakyParam>(pa);
  BRAID_CHECK(p.act != kRReLU, "operator LeakyReLU: act_type='rrelu' is not supported on a GPU; use cpu()");
  return p;
}

}  // namespace

void register_leaky_relu_gpu_kernels(Registry& r) {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const LeakyParam& p = gpu_param(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, { forward<T>(p, a); });
    cuda::finish(kName);
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const LeakyParam& p = gpu_param(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, { backward<T>(p, a); });
    cuda::finish(kName);
  };
  r.at(kName).gpu = k;
}

}  // namespace braid::op::detail
