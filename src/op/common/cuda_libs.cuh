#pragma once
// cuBLAS and cuDNN for the GPU kernels, loaded with dlopen when the first GPU operator needs them:
// linking them would cost every Braid process (and every test) ~0.4 s of loading, GPU or not.
// The functions are reached through tables whose members carry the libraries' own names and
// types: `cuda::cublas().cublasGemmEx(...)`. A function not listed below is added to its list.
//
// Each engine worker of a GPU has its own handles, bound to the worker's stream (cuda::stream()),
// and its own scratch memory for the libraries' workspaces.
#include <cublas_v2.h>
#include <cudnn.h>

#include <cstddef>

#include "braid/base/error.h"

#define BRAID_CUBLAS_FUNCTIONS(X) \
  X(cublasCreate_v2)              \
  X(cublasSetStream_v2)           \
  X(cublasSetMathMode)            \
  X(cublasGetStatusString)

#define BRAID_CUDNN_FUNCTIONS(X)                    \
  X(cudnnCreate)                                    \
  X(cudnnSetStream)                                 \
  X(cudnnGetErrorString)                            \
  X(cudnnCreateTensorDescriptor)                    \
  X(cudnnSetTensorNdDescriptor)                     \
  X(cudnnDestroyTensorDescriptor)                   \
  X(cudnnCreateFilterDescriptor)                    \
  X(cudnnSetFilterNdDescriptor)                     \
  X(cudnnDestroyFilterDescriptor)                   \
  X(cudnnCreateConvolutionDescriptor)               \
  X(cudnnSetConvolutionNdDescriptor)                \
  X(cudnnSetConvolutionGroupCount)                  \
  X(cudnnSetConvolutionMathType)                    \
  X(cudnnDestroyConvolutionDescriptor)              \
  X(cudnnGetConvolutionForwardAlgorithm_v7)         \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)    \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)  \
  X(cudnnGetConvolutionForwardWorkspaceSize)        \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)   \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize) \
  X(cudnnConvolutionForward)                        \
  X(cudnnConvolutionBackwardData)                   \
  X(cudnnConvolutionBackwardFilter)                 \
  X(cudnnConvolutionBackwardBias)                   \
  X(cudnnAddTensor)                                 \
  X(cudnnCreatePoolingDescriptor)                   \
  X(cudnnSetPoolingNdDescriptor)                    \
  X(cudnnDestroyPoolingDescriptor)                  \
  X(cudnnPoolingForward)                            \
  X(cudnnPoolingBackward)                           \
  X(cudnnDeriveBNTensorDescriptor)                  \
  X(cudnnBatchNormalizationForwardTraining)         \
  X(cudnnBatchNormalizationForwardInference)        \
  X(cudnnBatchNormalizationBackward)

namespace braid::op::cuda {

#define BRAID_CUDA_LIB_MEMBER(f) decltype(&::f) f = nullptr;
struct Cublas {
  BRAID_CUBLAS_FUNCTIONS(BRAID_CUDA_LIB_MEMBER)
  // C++ sees these two overloaded (a wrapper for an older computeType): the C functions.
  cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k,
                                 const void* alpha, const void* a, cudaDataType, int lda, const void* b, cudaDataType,
                                 int ldb, const void* beta, void* c, cudaDataType, int ldc, cublasComputeType_t,
                                 cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*cublasGemmStridedBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n,
                                               int k, const void* alpha, const void* a, cudaDataType, int lda,
                                               long long stride_a, const void* b, cudaDataType, int ldb,
                                               long long stride_b, const void* beta, void* c, cudaDataType, int ldc,
                                               long long stride_c, int batch, cublasComputeType_t,
                                               cublasGemmAlgo_t) = nullptr;
};
struct Cudnn {
  BRAID_CUDNN_FUNCTIONS(BRAID_CUDA_LIB_MEMBER)
};
#undef BRAID_CUDA_LIB_MEMBER

/// The loaded libraries; the first call loads them and throws braid::Error naming the library
/// and how to make it findable where it cannot be loaded.
const Cublas& cublas();
const Cudnn& cudnn();

/// The calling worker's handles on the current device, bound to stream().
cublasHandle_t cublas_handle();
cudnnHandle_t cudnn_handle();

/// At least `bytes` of device memory for the calling worker, valid until its next call (the
/// worker runs one kernel at a time, and the stream orders the uses).
void* workspace(size_t bytes);

/// Whether float32 products and convolutions may use TF32 tensor cores (BRAID_GPU_TF32=1): faster,
/// with a 10-bit mantissa in the products. Off by default, so that float32 results agree with the
/// CPU's to float precision.
bool allow_tf32();

/// Throws braid::Error "operator <op>: cuBLAS/cuDNN failed: <status>" unless the call succeeded.
void check_cublas(cublasStatus_t status, const char* op);
void check_cudnn(cudnnStatus_t status, const char* op);

}  // namespace braid::op::cuda
