// Making and keeping cuDNN convolution plans (cudnn_conv_plan.cuh).
#include <map>
#include <memory>
#include <vector>

#include "cudnn_conv_plan.cuh"
#include "op/common/cuda_libs.cuh"

namespace braid::op::detail {
namespace {

cudnnDataType_t cudnn_type(DType dtype, const char* op) {
  BRAID_CHECK(dtype == DType::Float32 || dtype == DType::Float64, "operator ", op, " on a GPU supports float32 and ",
              "float64, not ", dtype_name(dtype), "; use cpu() or convert with astype");
  return dtype == DType::Float32 ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
}

int cudnn_int(int64_t v, const char* op) {
  BRAID_CHECK(v <= INT32_MAX, "operator ", op, ": a size of ", v, " exceeds what cuDNN takes; use cpu()");
  return static_cast<int>(v);
}

cudnnTensorDescriptor_t tensor_4d(const std::vector<int64_t>& dims, cudnnDataType_t type, const char* op) {
  const auto& dnn = cuda::cudnn();
  int d[4], s[4];
  for (int i = 3, stride = 1; i >= 0; --i) {
    d[i] = cudnn_int(dims[static_cast<size_t>(i)], op);
    s[i] = stride;
    stride *= d[i];
  }
  cudnnTensorDescriptor_t t;
  cuda::check_cudnn(dnn.cudnnCreateTensorDescriptor(&t), op);
  cuda::check_cudnn(dnn.cudnnSetTensorNdDescriptor(t, type, 4, d, s), op);
  return t;
}

// The first algorithm cuDNN's heuristics rank highest among those that can run this convolution.
template <class Perf>
Perf first_usable(const Perf* perf, int returned, const char* op, const char* what) {
  for (int i = 0; i < returned; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) return perf[i];
  throw Error(cat("operator ", op, ": cuDNN has no ", what, " algorithm for this convolution; use cpu()"));
}

std::unique_ptr<CudnnConvPlan> make_plan(const ConvGeom& g, DType dtype, const char* op) {
  const auto& dnn = cuda::cudnn();
  const cudnnHandle_t h = cuda::cudnn_handle();
  const cudnnDataType_t type = cudnn_type(dtype, op);
  auto p = std::make_unique<CudnnConvPlan>();
  p->x = tensor_4d({g.n, g.c, g.ih, g.iw}, type, op);
  p->y = tensor_4d({g.n, g.f, g.oh, g.ow}, type, op);
  p->y_bias = tensor_4d({1, g.f, 1, 1}, type, op);
  p->x_bias = tensor_4d({1, g.c, 1, 1}, type, op);
  const int w_dims[4] = {cudnn_int(g.f, op), cudnn_int(g.c / g.g, op), cudnn_int(g.kh, op), cudnn_int(g.kw, op)};
  cuda::check_cudnn(dnn.cudnnCreateFilterDescriptor(&p->w), op);
  cuda::check_cudnn(dnn.cudnnSetFilterNdDescriptor(p->w, type, CUDNN_TENSOR_NCHW, 4, w_dims), op);
  // cuDNN pads both sides alike: a Deconvolution's geometry may have less padding on the
  // bottom/right (ph_r), but those rows lie past the last window, so the result is the same.
  const int pad[2] = {cudnn_int(g.ph, op), cudnn_int(g.pw, op)};
  const int stride[2] = {cudnn_int(g.sh, op), cudnn_int(g.sw, op)};
  const int dilate[2] = {cudnn_int(g.dh, op), cudnn_int(g.dw, op)};
  cuda::check_cudnn(dnn.cudnnCreateConvolutionDescriptor(&p->conv), op);
  cuda::check_cudnn(dnn.cudnnSetConvolutionNdDescriptor(p->conv, 2, pad, stride, dilate, CUDNN_CROSS_CORRELATION, type),
                    op);
  cuda::check_cudnn(dnn.cudnnSetConvolutionGroupCount(p->conv, cudnn_int(g.g, op)), op);
  // TF32 tensor cores for float32 only where allowed (cuda::allow_tf32); cuDNN's default math
  // uses them.
  cuda::check_cudnn(dnn.cudnnSetConvolutionMathType(p->conv, cuda::allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
                    op);

  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  cuda::check_cudnn(dnn.cudnnGetConvolutionForwardAlgorithm_v7(h, p->x, p->w, p->conv, p->y,
                                                               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, fwd),
                    op);
  p->forward_algo = first_usable(fwd, returned, op, "forward").algo;
  cuda::check_cudnn(
      dnn.cudnnGetConvolutionForwardWorkspaceSize(h, p->x, p->w, p->conv, p->y, p->forward_algo, &p->forward_bytes),
      op);

  cudnnConvolutionBwdDataAlgoPerf_t bwd_data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  cuda::check_cudnn(dnn.cudnnGetConvolutionBackwardDataAlgorithm_v7(
                        h, p->w, p->y, p->conv, p->x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, bwd_data),
                    op);
  p->backward_data_algo = first_usable(bwd_data, returned, op, "backward-data").algo;
  cuda::check_cudnn(dnn.cudnnGetConvolutionBackwardDataWorkspaceSize(h, p->w, p->y, p->conv, p->x,
                                                                     p->backward_data_algo, &p->backward_data_bytes),
                    op);

  cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  cuda::check_cudnn(dnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                        h, p->x, p->y, p->conv, p->w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &returned, bwd_filter),
                    op);
  p->backward_filter_algo = first_usable(bwd_filter, returned, op, "backward-filter").algo;
  cuda::check_cudnn(dnn.cudnnGetConvolutionBackwardFilterWorkspaceSize(
                        h, p->x, p->y, p->conv, p->w, p->backward_filter_algo, &p->backward_filter_bytes),
                    op);
  return p;
}

}  // namespace

CudnnConvPlan::~CudnnConvPlan() {
  const auto& dnn = cuda::cudnn();
  for (cudnnTensorDescriptor_t t : {x, y, y_bias, x_bias})
    if (t) dnn.cudnnDestroyTensorDescriptor(t);
  if (w) dnn.cudnnDestroyFilterDescriptor(w);
  if (conv) dnn.cudnnDestroyConvolutionDescriptor(conv);
}

const CudnnConvPlan& cudnn_conv_plan(const ConvGeom& g, DType dtype, const char* op) {
  int device = 0;
  cudaGetDevice(&device);
  std::vector<int64_t> key = g.key();
  key.push_back(static_cast<int64_t>(dtype));
  key.push_back(device);
  thread_local std::map<std::vector<int64_t>, std::unique_ptr<CudnnConvPlan>> plans;
  std::unique_ptr<CudnnConvPlan>& plan = plans[key];
  if (!plan) plan = make_plan(g, dtype, op);
  return *plan;
}

}  // namespace braid::op::detail
