// Row-major products on column-major cuBLAS (cublas_gemm.cuh): cuBLAS sees each row-major matrix
// as its transpose, so C = op(A)·op(B) is computed as Cᵀ = op(B)ᵀ·op(A)ᵀ with the operands swapped.
// float16 and bfloat16 products accumulate in float on the tensor cores.
#include <climits>

#include "op/common/cublas_gemm.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/common/cuda_libs.cuh"

namespace braid::op::cuda {
namespace {

template <class T>
struct CublasTypes;
template <>
struct CublasTypes<float> {
  static constexpr cudaDataType data = CUDA_R_32F;
  static cublasComputeType_t compute() { return allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F; }
};
template <>
struct CublasTypes<double> {
  static constexpr cudaDataType data = CUDA_R_64F;
  static cublasComputeType_t compute() { return CUBLAS_COMPUTE_64F; }
};
template <>
struct CublasTypes<__half> {
  static constexpr cudaDataType data = CUDA_R_16F;
  static cublasComputeType_t compute() { return CUBLAS_COMPUTE_32F; }
};
template <>
struct CublasTypes<__nv_bfloat16> {
  static constexpr cudaDataType data = CUDA_R_16BF;
  static cublasComputeType_t compute() { return CUBLAS_COMPUTE_32F; }
};

int cublas_int(int64_t v, const char* op) {
  BRAID_CHECK(v <= INT_MAX, "operator ", op, ": a matrix dimension or batch of ", v,
              " exceeds what cuBLAS takes (2^31 - 1); use cpu()");
  return static_cast<int>(v);
}

}  // namespace

template <class T>
void gemm_batched(const detail::GemmDims& g, int64_t batch, const T* a, int64_t stride_a, const T* b, int64_t stride_b,
                  T* c, int64_t stride_c, bool accumulate, const char* op) {
  if (batch == 0 || g.m == 0 || g.n == 0) return;
  if (g.k == 0) {  // an empty sum: C = 0 (or unchanged), without asking cuBLAS about k = 0
    if (!accumulate) cudaMemsetAsync(c, 0, ((batch - 1) * stride_c + g.m * g.n) * sizeof(T), stream());
    return;
  }
  const int m = cublas_int(g.m, op), n = cublas_int(g.n, op), k = cublas_int(g.k, op);
  // Leading dimensions of the row-major operands as stored: A is m×k (k×m when transposed).
  const int lda = g.trans_a ? m : k, ldb = g.trans_b ? k : n;
  const compute_t<T> alpha = 1, beta = accumulate ? 1 : 0;  // in the compute type
  using Types = CublasTypes<T>;
  check_cublas(cublas().cublasGemmStridedBatchedEx(
                   cublas_handle(), g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m,
                   k, &alpha, b, Types::data, ldb, stride_b, a, Types::data, lda, stride_a, &beta, c, Types::data, n,
                   stride_c, cublas_int(batch, op), Types::compute(), CUBLAS_GEMM_DEFAULT),
               op);
}

template void gemm_batched<float>(const detail::GemmDims&, int64_t, const float*, int64_t, const float*, int64_t,
                                  float*, int64_t, bool, const char*);
template void gemm_batched<double>(const detail::GemmDims&, int64_t, const double*, int64_t, const double*, int64_t,
                                   double*, int64_t, bool, const char*);
template void gemm_batched<__half>(const detail::GemmDims&, int64_t, const __half*, int64_t, const __half*, int64_t,
                                   __half*, int64_t, bool, const char*);
template void gemm_batched<__nv_bfloat16>(const detail::GemmDims&, int64_t, const __nv_bfloat16*, int64_t,
                                          const __nv_bfloat16*, int64_t, __nv_bfloat16*, int64_t, bool, const char*);

}  // namespace braid::op::cuda
