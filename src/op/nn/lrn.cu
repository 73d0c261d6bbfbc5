// CUDA kernels of LRN (the CPU ones are in lrn.cc): one thread per element sums the squares over
// its channel window (forward), or over the channels whose window holds it (backward), in double
// as the CPU does.
#include "lrn.h"
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

// Element i of an NCHW array: its batch entry n, channel c and position q.
struct LrnElement {
  int64_t n, c, q;
  __device__ LrnElement(const LrnWindow& w, int64_t i)
      : n(i / (w.channels * w.plane)), c(i / w.plane % w.channels), q(i % w.plane) {}
  __device__ int64_t at(const LrnWindow& w, int64_t channel) const { return (n * w.channels + channel) * w.plane + q; }
};

// norm = knorm + alpha / nsize · Σ x² over the window; y = x · norm^-beta.
template <class T>
__global__ void lrn_forward(const T* x, T* y, T* norm, LrnWindow w, LrnParam p, int64_t n, OpReq req) {
  const double scale = p.alpha / static_cast<double>(p.nsize);
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const LrnElement e(w, i);
    double sum = 0;
    for (int64_t j = w.first(e.c); j <= w.last(e.c); ++j) {
      const double v = x[e.at(w, j)];
      sum += v * v;
    }
    const T nv = static_cast<T>(p.knorm + scale * sum);
    norm[i] = nv;
    if (req != OpReq::Null)
      cuda::store(y[i], req == OpReq::Add, static_cast<T>(x[i] * pow(static_cast<double>(nv), -p.beta)));
  }
}

// dx_i = g_i N_i^-beta - 2 alpha beta / nsize · x_i · Σ over the channels c whose window holds i
// of g_c x_c N_c^(-beta - 1).
template <class T>
__global__ void lrn_backward(const T* x, const T* norm, const T* g, T* dx, LrnWindow w, LrnParam p, int64_t n,
                             bool add) {
  const double coef = 2 * p.alpha * p.beta / static_cast<double>(p.nsize);
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const LrnElement e(w, i);
    double sum = 0;
    for (int64_t c = w.first_holding(e.c); c <= w.last_holding(e.c); ++c) {
      const int64_t k = e.at(w, c);
      sum += static_cast<double>(g[k]) * x[k] * pow(static_cast<double>(norm[k]), -p.beta - 1);
    }
    const double v = g[i] * pow(static_cast<double>(norm[i]), -p.beta) - coef * x[i] * sum;
    cuda::store(dx[i], add, static_cast<T>(v));
  }
}

void forward(const OpContext&, const std::any& pa, const ForwardArgs& a) {
  const auto& p = param<LrnParam>(pa);
  const LrnWindow w(a.inputs[0].shape, p.nsize);
  const int64_t n = a.inputs[0].size();
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "LRN", {
    lrn_forward<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), a.outputs[1].ptr<T>(), w, p, n, a.req[0]);
  });
  cuda::finish("LRN");
}

void backward(const OpContext&, const std::any& pa, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const auto& p = param<LrnParam>(pa);
  const LrnWindow w(a.inputs[0].shape, p.nsize);
  const int64_t n = a.inputs[0].size();
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "LRN", {
    lrn_backward<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
        a.inputs[0].ptr<T>(), a.outputs[1].ptr<T>(), a.out_grads[0].ptr<T>(), a.in_grads[0].ptr<T>(), w, p, n,
        a.req[0] == OpReq::Add);
  });
  cuda::finish("LRN");
}

}  // namespace

void register_lrn_gpu_kernels(Registry& r) { r.at("LRN").gpu = Kernels{forward, backward}; }

}  // namespace braid::op::detail
