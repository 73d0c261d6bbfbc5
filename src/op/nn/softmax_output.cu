// CUDA kernels of SoftmaxOutput (the CPU ones are in softmax_output.cc): the forward is the
// shared softmax kernel; the backward counts the labels on the device (ignored ones for the
// 'valid' normalization, out-of-range ones to refuse them as the CPU does), then writes
// (softmax - target) · scale per element.
#include <algorithm>

#include "nn_util.h"
#include "op/common/cuda_libs.cuh"
#include "op/register_all.h"
#include "softmax_kernels.cuh"
#include "softmax_output.h"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "SoftmaxOutput";

// counts[0]: labels equal to ignore_label; counts[1]: labels outside [0, classes) that are not
// skipped as ignored. One block.
template <class T>
__global__ void count_labels_kernel(const T* label, int64_t n, int64_t classes, int64_t ignore, bool use_ignore,
                                    int64_t* counts) {
  int64_t ignored = 0, bad = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const auto c = static_cast<int64_t>(label[i]);
    ignored += c == ignore;
    bad += !(use_ignore && c == ignore) && (c < 0 || c >= classes);
  }
  ignored = cuda::block_reduce(ignored, cuda::Sum{});
  bad = cuda::block_reduce(bad, cuda::Sum{});
  if (threadIdx.x == 0) {
    counts[0] = ignored;
    counts[1] = bad;
  }
}

// dx (=/+=) (out - target) · scale (· og): target the label's probabilities when
// `probabilities`, else the (smoothed) one-hot of the class index (none where ignored).
template <class T>
__global__ void softmax_output_grad_kernel(const T* out, const T* label, const T* og, T* dx, AxisSplit s,
                                           bool probabilities, int64_t ignore, bool use_ignore, double smooth, T scale,
                                           bool add) {
  BRAID_GRID_STRIDE_LOOP(j, s.outer * s.n * s.inner) {
    T grad;
    if (probabilities) {
      grad = out[j] - label[j];
    } else {
      const int64_t k = j % s.inner, i = j / s.inner % s.n, o = j / (s.inner * s.n);
      const auto l = static_cast<int64_t>(label[o * s.inner + k]);
      // A label outside [0, classes) matches no i: its row gets no target, as in MXNet.
      const double target = i == l ? 1 - smooth : smooth / static_cast<double>(s.n - 1);
      grad = use_ignore && l == ignore ? T(0) : static_cast<T>(out[j] - target);
    }
    cuda::store(dx[j], add, grad * scale * (og ? og[j] : T(1)));
  }
}

// The ignored labels' count; notes labels that name no class.
template <class T>
int64_t count_ignored(const SoftmaxOutputParam& p, const T* label, int64_t n, int64_t classes) {
  auto* counts = static_cast<int64_t*>(cuda::workspace(2 * sizeof(int64_t)));
  count_labels_kernel<T><<<1, cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      label, n, classes, static_cast<int64_t>(p.ignore_label), p.use_ignore, counts);
  int64_t host[2];
  cudaMemcpyAsync(host, counts, sizeof(host), cudaMemcpyDeviceToHost, cuda::stream());
  cuda::wait(kName);
  note_labels_outside(host[1], classes);
  return host[0];
}

template <class T>
void softmax_output_backward(const SoftmaxOutputParam& p, const BackwardArgs& a) {
  const Shape& shape = a.outputs[0].shape;
  const T* label = a.inputs[1].ptr<T>();
  const bool probabilities = a.inputs[1].shape == shape;
  const AxisSplit s = class_split(p, shape);
  double scale = p.grad_scale;
  if (!probabilities) {  // MXNet's normalization, as the CPU kernel applies it
    const int64_t nlabels = a.inputs[1].size();
    const int64_t valid = nlabels - count_ignored(p, label, nlabels, s.n);
    if (p.normalization == "valid") scale /= static_cast<double>(std::max<int64_t>(valid, 1));
    if (p.normalization == "batch") scale /= static_cast<double>(p.multi_output ? s.outer : nlabels);
    if (p.multi_output && p.normalization != "valid") scale /= static_cast<double>(s.inner);
  }
  const double smooth = p.multi_output || s.n < 2 ? 0.0 : p.smooth_alpha;
  const int64_t n = shape.size();
  softmax_output_grad_kernel<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      a.outputs[0].ptr<T>(), label, p.out_grad ? a.out_grads[0].ptr<T>() : nullptr, a.in_grads[0].ptr<T>(), s,
      probabilities, static_cast<int64_t>(p.ignore_label), p.use_ignore, smooth, static_cast<T>(scale),
      a.req[0] == OpReq::Add);
}

}  // namespace

void register_softmax_output_gpu_kernels(Registry& r) {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const AxisSplit s = class_split(param<SoftmaxOutputParam>(pa), a.inputs[0].shape);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, {
      launch_softmax_forward(a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), s, SoftmaxSpec{}, a.req[0] == OpReq::Add);
    });
    cuda::finish(kName);
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[1] == OpReq::Write)  // labels have no gradient
      cudaMemsetAsync(a.in_grads[1].dptr, 0, a.in_grads[1].size() * dtype_size(a.in_grads[1].dtype), cuda::stream());
    if (a.req[0] != OpReq::Null)
      BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, kName,
                             { softmax_output_backward<T>(param<SoftmaxOutputParam>(pa), a); });
    cuda::finish(kName);
  };
  r.at(kName).gpu = k;
}

}  // namespace braid::op::detail
