// CUDA kernels of Convolution and Deconvolution (the CPU ones are in convolution.cc) on cuDNN.
// As on the CPU, Deconvolution is the convolution of conv_geom with forward and backward-data
// exchanged.
#include "conv_param.h"
#include "cudnn_conv_plan.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/common/cuda_libs.cuh"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

// One convolution on the calling worker's handle: its plan, its tensors' dtype and the scaling
// factors cuDNN takes in that dtype.
template <class T>
struct CudnnConv {
  const char* op;
  const CudnnConvPlan& plan;
  const T one = 1, zero = 0;

  CudnnConv(const ConvParam& p, const Shape& data, DType dtype)
      : op(p.op.c_str()), plan(cudnn_conv_plan(checked_geom(p, data), dtype, p.op.c_str())) {}

  static ConvGeom checked_geom(const ConvParam& p, const Shape& data) {
    BRAID_CHECK(!p.fused_relu, "operator ", p.op, ": a fused relu is not supported on a GPU; use cpu()");
    BRAID_CHECK(!p.channels_last, "operator ", p.op, ": layout NHWC is not supported on a GPU; use cpu() or ",
                "NCHW data");
    BRAID_CHECK(p.spatial() < 3, "operator ", p.op, ": 3-D kernels are not supported on a GPU yet; use cpu()");
    return conv_geom(p, data);
  }
  // cuDNN's beta: keep (Add) or overwrite what the output holds
  const T* beta(OpReq req) const { return req == OpReq::Add ? &one : &zero; }

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
  // out (n, ch, ...) += bias (ch): after the product has been written or added
  void add_bias(const T* bias, cudnnTensorDescriptor_t bias_desc, T* out, cudnnTensorDescriptor_t out_desc) const {
    cuda::check_cudnn(cuda::cudnn().cudnnAddTensor(cuda::cudnn_handle(), &one, bias_desc, bias, &one, out_desc, out),
                      op);
  }
  // db (=/+=) the sum of dy over the batch and space
  void bias_grad(const T* dy, cudnnTensorDescriptor_t dy_desc, T* db, cudnnTensorDescriptor_t db_desc,
                 OpReq req) const {
    if (req == OpReq::Null) return;
    cuda::check_cudnn(
        cuda::cudnn().cudnnConvolutionBackwardBias(cuda::cudnn_handle(), &one, dy_desc, dy, beta(req), db_desc, db),
        op);
  }
};

template <class T>
void conv_forward(const ConvParam& p, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const CudnnConv<T> c(p, a.inputs[0].shape, a.inputs[0].dtype);
  T* y = a.outputs[0].ptr<T>();
  c.forward(a.inputs[0].ptr<T>(), a.inputs[1].ptr<T>(), y, a.req[0]);
  if (!p.no_bias) c.add_bias(a.inputs[2].ptr<T>(), c.plan.y_bias, y, c.plan.y);
}

template <class T>
void conv_backward(const ConvParam& p, const BackwardArgs& a) {
  const CudnnConv<T> c(p, a.inputs[0].shape, a.inputs[0].dtype);
  const T* dy = a.out_grads[0].ptr<T>();
  c.backward_data(dy, a.inputs[1].ptr<T>(), a.in_grads[0].ptr<T>(), a.req[0]);
  c.backward_filter(a.inputs[0].ptr<T>(), dy, a.in_grads[1].ptr<T>(), a.req[1]);
  if (!p.no_bias) c.bias_grad(dy, c.plan.y, a.in_grads[2].ptr<T>(), c.plan.y_bias, a.req[2]);
}

// Deconvolution's data is the convolution's output and its output the convolution's input.
template <class T>
void deconv_forward(const ConvParam& p, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const CudnnConv<T> c(p, a.inputs[0].shape, a.inputs[0].dtype);
  T* y = a.outputs[0].ptr<T>();
  c.backward_data(a.inputs[0].ptr<T>(), a.inputs[1].ptr<T>(), y, a.req[0]);
  if (!p.no_bias) c.add_bias(a.inputs[2].ptr<T>(), c.plan.x_bias, y, c.plan.x);
}

template <class T>
void deconv_backward(const ConvParam& p, const BackwardArgs& a) {
  const CudnnConv<T> c(p, a.inputs[0].shape, a.inputs[0].dtype);
  const T* dy = a.out_grads[0].ptr<T>();
  c.forward(dy, a.inputs[1].ptr<T>(), a.in_grads[0].ptr<T>(), a.req[0]);
  c.backward_filter(dy, a.inputs[0].ptr<T>(), a.in_grads[1].ptr<T>(), a.req[1]);
  if (!p.no_bias) c.bias_grad(dy, c.plan.x, a.in_grads[2].ptr<T>(), c.plan.x_bias, a.req[2]);
}

Kernels conv_kernels() {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& p, const ForwardArgs& a) {
    const ConvParam& cp = param<ConvParam>(p);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, cp.op.c_str(),
                           { cp.transposed ? deconv_forward<T>(cp, a) : conv_forward<T>(cp, a); });
    cuda::finish(cp.op.c_str());
  };
  k.backward = [](const OpContext&, const std::any& p, const BackwardArgs& a) {
    const ConvParam& cp = param<ConvParam>(p);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, cp.op.c_str(),
                           { cp.transposed ? deconv_backward<T>(cp, a) : conv_backward<T>(cp, a); });
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
