// Making and keeping cuDNN convolution plans (cudnn_conv_plan.cuh).
#include <map>
#include <memory>
#include <vector>

#include "cudnn_conv_plan.cuh"
#include "op/common/cuda_libs.cuh"

namespace braid::op::detail {
namespace {

cudnnDataType_t cudnn_type(DType dtype, const char* op) {
  switch (dtype) {
    case DType::Float32:
      return CUDNN_DATA_FLOAT;
    case DType::Float64:
      return CUDNN_DATA_DOUBLE;
    case DType::Float16:
      return CUDNN_DATA_HALF;
    case DType::BFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      throw Error(cat("operator ", op, " on a GPU supports float32, float64, float16 and bfloat16, not ",
                      dtype_name(dtype), "; convert with astype"));
  }
}

// The type cuDNN accumulates in: float for the 16-bit types.
cudnnDataType_t compute_type(cudnnDataType_t data) {
  return data == CUDNN_DATA_HALF || data == CUDNN_DATA_BFLOAT16 ? CUDNN_DATA_FLOAT : data;
}

// Tensor cores for the 16-bit types; for float32 only where TF32 is allowed (cuda::allow_tf32),
// FMA math otherwise, so that float32 results agree with the CPU's.
cudnnMathType_t math_type(cudnnDataType_t data) {
  if (data == CUDNN_DATA_HALF || data == CUDNN_DATA_BFLOAT16) return CUDNN_TENSOR_OP_MATH;
  return data == CUDNN_DATA_FLOAT && cuda::allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}

int cudnn_int(int64_t v, const char* op) {
  BRAID_CHECK(v <= INT32_MAX, "operator ", op, ": a size of ", v, " exceeds what cuDNN takes; use cpu()");
  return static_cast<int>(v);
}

// A tensor descriptor of `dims` (N, C, spatial...) stored channels first, or channels last
// (N, spatial..., C) as the strides say.
cudnnTensorDescriptor_t tensor_nd(const std::vector<int64_t>& dims, bool channels_last, cudnnDataType_t type,
                                  const char* op) {
  const int nd = static_cast<int>(dims.size());
  int d[5] = {}, s[5] = {};
  for (int i = 0; i < nd; ++i) d[i] = cudnn_int(dims[static_cast<size_t>(i)], op);
  int stride = 1;
  if (!channels_last) {
    for (int i = nd - 1; i >= 0; --i) {
      s[i] = stride;
      stride *= d[i];
    }
  } else {
    s[1] = 1;
    stride = d[1];
    for (int i = nd - 1; i >= 2; --i) {
      s[i] = stride;
      stride *= d[i];
    }
    s[0] = stride;
  }
  const auto& dnn = cuda::cudnn();
  cudnnTensorDescriptor_t t;
  cuda::check_cudnn(dnn.cudnnCreateTensorDescriptor(&t), op);
  cuda::check_cudnn(dnn.cudnnSetTensorNdDescriptor(t, type, nd, d, s), op);
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
  // Spatial axes: depth, height, width for 3-D convolutions; height and width otherwise (1-D ones
  // have height 1).
  const std::vector<int64_t> in_space =
      g.volumetric ? std::vector<int64_t>{g.id, g.ih, g.iw} : std::vector<int64_t>{g.ih, g.iw};
  const std::vector<int64_t> out_space =
      g.volumetric ? std::vector<int64_t>{g.od, g.oh, g.ow} : std::vector<int64_t>{g.oh, g.ow};
  const std::vector<int64_t> taps =
      g.volumetric ? std::vector<int64_t>{g.kd, g.kh, g.kw} : std::vector<int64_t>{g.kh, g.kw};
  auto with = [](std::vector<int64_t> head, const std::vector<int64_t>& space) {
    head.insert(head.end(), space.begin(), space.end());
    return head;
  };
  p->x = tensor_nd(with({g.n, g.c}, in_space), g.channels_last, type, op);
  p->y = tensor_nd(with({g.n, g.f}, out_space), g.channels_last, type, op);
  // Weights (F, C/g, taps...) channels first, (F, taps..., C/g) channels last: cuDNN's NHWC filters.
  const std::vector<int64_t> w_dims = with({g.f, g.c / g.g}, taps);
  int w[5];
  for (size_t i = 0; i < w_dims.size(); ++i) w[i] = cudnn_int(w_dims[i], op);
  cuda::check_cudnn(dnn.cudnnCreateFilterDescriptor(&p->w), op);
  cuda::check_cudnn(dnn.cudnnSetFilterNdDescriptor(p->w, type, g.channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                                   static_cast<int>(w_dims.size()), w),
                    op);
  // cuDNN pads both sides alike: a Deconvolution's geometry may have less padding on the
  // bottom/right (ph_r), but those rows lie past the last window, so the result is the same.
  const int spatial = g.volumetric ? 3 : 2;
  const int pad[3] = {cudnn_int(g.volumetric ? g.pd : g.ph, op), cudnn_int(g.volumetric ? g.ph : g.pw, op),
                      cudnn_int(g.pw, op)};
  const int stride[3] = {cudnn_int(g.volumetric ? g.sd : g.sh, op), cudnn_int(g.volumetric ? g.sh : g.sw, op),
                         cudnn_int(g.sw, op)};
  const int dilate[3] = {cudnn_int(g.volumetric ? g.dd : g.dh, op), cudnn_int(g.volumetric ? g.dh : g.dw, op),
                         cudnn_int(g.dw, op)};
  cuda::check_cudnn(dnn.cudnnCreateConvolutionDescriptor(&p->conv), op);
  cuda::check_cudnn(dnn.cudnnSetConvolutionNdDescriptor(p->conv, spatial, pad, stride, dilate, CUDNN_CROSS_CORRELATION,
                                                        compute_type(type)),
                    op);
  cuda::check_cudnn(dnn.cudnnSetConvolutionGroupCount(p->conv, cudnn_int(g.g, op)), op);
  cuda::check_cudnn(dnn.cudnnSetConvolutionMathType(p->conv, math_type(type)), op);

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
  for (cudnnTensorDescriptor_t t : {x, y})
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
