// CUDA kernels of dot and batch_dot (the CPU ones are in matrix_dot.cc): the same products
// (matrix_dot.h), on cuBLAS; float16 and bfloat16 on tensor cores.
#include "matrix_dot.h"
#include "op/common/cublas_gemm.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

Kernels product_kernels(const std::string& name, ProductFn product) {
  // cuda::gemm_batched with the operator's name for its errors.
  auto gemm_for = [name]<class T>(T) {
    return [name](const GemmDims& g, int64_t batch, const T* a, int64_t sa, const T* b, int64_t sb, T* c, int64_t sc,
                  bool accumulate) { cuda::gemm_batched<T>(g, batch, a, sa, b, sb, c, sc, accumulate, name.c_str()); };
  };
  Kernels k;
  k.takes_16bit = true;
  k.forward = [name, product, gemm_for](const OpContext&, const std::any& p, const ForwardArgs& a) {
    const Product pr = product(param<DotParam>(p), a.inputs[0].shape, a.inputs[1].shape);
    cuda::with_float_type(a.outputs[0].dtype, name.c_str(), [&](auto t) {
      using T = decltype(t);
      product_forward<T>(pr, a.inputs[0], a.inputs[1], a.outputs[0], a.req[0], gemm_for(T{}));
    });
    cuda::finish(name.c_str());
  };
  k.backward = [name, product, gemm_for](const OpContext&, const std::any& p, const BackwardArgs& a) {
    const Product pr = product(param<DotParam>(p), a.inputs[0].shape, a.inputs[1].shape);
    cuda::with_float_type(a.out_grads[0].dtype, name.c_str(), [&](auto t) {
      using T = decltype(t);
      product_backward<T>(pr, a, gemm_for(T{}));
    });
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_matrix_dot_gpu_kernels(Registry& r) {
  r.at("dot").gpu = product_kernels("dot", dot_product);
  r.at("batch_dot").gpu = product_kernels("batch_dot", batch_dot_product);
}

}  // namespace braid::op::detail
