// CUDA kernels of Convolution and Deconvolution (the CPU ones are in convolution.cc) on cuDNN,
// the biases by kernels of their own. As on the CPU, Deconvolution is the convolution of
// conv_geom with forward and backward-data exchanged. 1-D, 2-D and 3-D, channels first or last;
// float16 and bfloat16 run on the tensor cores, accumulating in float.
#include "channel_sum.cuh"
#include "conv_param.h"
#include "cudnn_conv_plan.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/common/cuda_libs.cuh"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

// out[i] += bias[channel of i] over the (batch, channels, space) view `s`.
template <class T>
__global__ void add_channel_bias(const T* bias, T* out, AxisSplit s) {
  BRAID_GRID_STRIDE_LOOP(i, s.outer * s.n * s.inner) {
    cuda::store(out[i], true, cuda::load_value(bias[i / s.inner % s.n]));
  }
}

// db[c] (=/+=) the sum of dy over the batch and space, one block per channel, in double as on the
// CPU.
template <class T>
__global__ void channel_bias_grad(const T* dy, T* db, AxisSplit s, bool add) {
  BRAID_BLOCK_ROW_LOOP(c, s.n) {
    const double sum = channel_sum(s, c, [dy](int64_t i) { return static_cast<double>(cuda::load_value(dy[i])); });
    if (threadIdx.x == 0) cuda::store(db[c], add, static_cast<cuda::compute_t<T>>(sum));
  }
}

// The (batch, channels, space) view of an array, channels first (N, C, ...) or last (N, ..., C).
AxisSplit channels_of(const Shape& s, bool channels_last) {
  return AxisSplit::around(s, channels_last ? s.ndim() - 1 : 1);
}

// One convolution on the calling worker's handle: its plan, its tensors' dtype and the scaling
// factors cuDNN takes for that dtype (float for the 16-bit ones).
template <class T>
struct CudnnConv {
  const char* op;
  const CudnnConvPlan& plan;
  const cuda::compute_t<T> one = 1, zero = 0;

  CudnnConv(const ConvParam& p, const Shape& data, DType dtype)
      : op(p.op.c_str()), plan(cudnn_conv_plan(checked_geom(p, data), dtype, p.op.c_str())) {}

  static ConvGeom checked_geom(const ConvParam& p, const Shape& data) {
    BRAID_CHECK(!p.fused_relu, "operator ", p.op, ": a fused relu is not supported on a GPU; use cpu()");
    return conv_geom(p, data);
  }
  // cuDNN's beta: keep (Add) or overwrite what the output holds
  const cuda::compute_t<T>* beta(OpReq req) const { return req == OpReq::Add ? &one : &zero; }

  // y (=/+=) conv(x, w)
  void forward(const T* x, const T* w, T* y, OpReq req) const {
    if (req == OpReq::Null) return;
    cuda::check_cudnn(cuda::cudnn().cudnnConvolutionForward(cuda::cudnn_handle(), &one, plan.x, x, plan.w, w, plan.conv,
                                                            plan.forward_algo, cuda::workspace(plan.forward_bytes),
                                                            plan.forward_bytes, beta(req), plan.y, y),
                      op);
  }
  // dx (=/+=) the gradient of conv with respect to x, from dy
  void backward_data(const T* dy, const T* w, T* dx, OpReq req) const {
    if (req == OpReq::Null) return;
    cuda::check_cudnn(cuda::cudnn().cudnnConvolutionBackwardData(
                          cuda::cudnn_handle(), &one, plan.w, w, plan.y, dy, plan.conv, plan.backward_data_algo,
                          cuda::workspace(plan.backward_data_bytes), plan.backward_data_bytes, beta(req), plan.x, dx),
                      op);
  }
  // dw (=/+=) the gradient of conv with respect to w, from x and dy
  void backward_filter(const T* x, const T* dy, T* dw, OpReq req) const {
    if (req == OpReq::Null) return;
    cuda::check_cudnn(cuda::cudnn().cudnnConvolutionBackwardFilter(cuda::cudnn_handle(), &one, plan.x, x, plan.y, dy,
                                                                   plan.conv, plan.backward_filter_algo,
                                                                   cuda::workspace(plan.backward_filter_bytes),
                                                                   plan.backward_filter_bytes, beta(req), plan.w, dw),
                      op);
  }
};

// out (n, ch, ...) += bias (ch): after the product has been written or added
template <class T>
void add_bias(const TBlob& bias, const TBlob& out, bool channels_last) {
  const AxisSplit s = channels_of(out.shape, channels_last);
  add_channel_bias<T>
      <<<cuda::blocks_for(out.size()), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(bias.ptr<T>(), out.ptr<T>(), s);
}

// db (=/+=) the sum of dy over the batch and space
template <class T>
void bias_grad(const TBlob& dy, const TBlob& db, OpReq req, bool channels_last) {
  if (req == OpReq::Null) return;
  const AxisSplit s = channels_of(dy.shape, channels_last);
  channel_bias_grad<T><<<cuda::row_blocks(s.n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(dy.ptr<T>(), db.ptr<T>(),
                                                                                             s, req == OpReq::Add);
}

template <class T>
void conv_forward(const ConvParam& p, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const CudnnConv<T> c(p, a.inputs[0].shape, a.inputs[0].dtype);
  T* y = a.outputs[0].ptr<T>();
  c.forward(a.inputs[0].ptr<T>(), a.inputs[1].ptr<T>(), y, a.req[0]);
  if (!p.no_bias) add_bias<T>(a.inputs[2], a.outputs[0], p.channels_last);
}

// The gradient of argument k, null where it is not wanted (its blob is then empty).
template <class T>
T* grad_or_null(const BackwardArgs& a, size_t k) {
  return a.req[k] == OpReq::Null ? nullptr : a.in_grads[k].ptr<T>();
}

template <class T>
void conv_backward(const ConvParam& p, const BackwardArgs& a) {
  const CudnnConv<T> c(p, a.inputs[0].shape, a.inputs[0].dtype);
  const T* dy = a.out_grads[0].ptr<T>();
  c.backward_data(dy, a.inputs[1].ptr<T>(), grad_or_null<T>(a, 0), a.req[0]);
  c.backward_filter(a.inputs[0].ptr<T>(), dy, grad_or_null<T>(a, 1), a.req[1]);
  if (!p.no_bias) bias_grad<T>(a.out_grads[0], a.in_grads[2], a.req[2], p.channels_last);
}

// Deconvolution's data is the convolution's output and its output the convolution's input.
template <class T>
void deconv_forward(const ConvParam& p, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const CudnnConv<T> c(p, a.inputs[0].shape, a.inputs[0].dtype);
  T* y = a.outputs[0].ptr<T>();
  c.backward_data(a.inputs[0].ptr<T>(), a.inputs[1].ptr<T>(), y, a.req[0]);
  if (!p.no_bias) add_bias<T>(a.inputs[2], a.outputs[0], p.channels_last);
}

template <class T>
void deconv_backward(const ConvParam& p, const BackwardArgs& a) {
  const CudnnConv<T> c(p, a.inputs[0].shape, a.inputs[0].dtype);
  const T* dy = a.out_grads[0].ptr<T>();
  c.forward(dy, a.inputs[1].ptr<T>(), grad_or_null<T>(a, 0), a.req[0]);
  c.backward_filter(dy, a.inputs[0].ptr<T>(), grad_or_null<T>(a, 1), a.req[1]);
  if (!p.no_bias) bias_grad<T>(a.out_grads[0], a.in_grads[2], a.req[2], p.channels_last);
}

Kernels conv_kernels() {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [](const OpContext&, const std::any& p, const ForwardArgs& a) {
    const ConvParam& cp = param<ConvParam>(p);
    cuda::with_float_type(a.inputs[0].dtype, cp.op.c_str(), [&](auto t) {
      using T = decltype(t);
      cp.transposed ? deconv_forward<T>(cp, a) : conv_forward<T>(cp, a);
    });
    cuda::finish(cp.op.c_str());
  };
  k.backward = [](const OpContext&, const std::any& p, const BackwardArgs& a) {
    const ConvParam& cp = param<ConvParam>(p);
    cuda::with_float_type(a.inputs[0].dtype, cp.op.c_str(), [&](auto t) {
      using T = decltype(t);
      cp.transposed ? deconv_backward<T>(cp, a) : conv_backward<T>(cp, a);
    });
    cuda::finish(cp.op.c_str());
  };
  return k;
}

}  // namespace

void register_convolution_gpu_kernels(Registry& r) {
  r.at("Convolution").gpu = conv_kernels();
  r.at("Deconvolution").gpu = conv_kernels();
}

}  // namespace braid::op::detail
