#include "float16_compute.h"
#include "op/common/cuda_launch.cuh"

namespace braid::op::detail {

void refuse_graph_capture(const char* op) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t err = cudaStreamIsCapturing(cuda::stream(), &status);
  BRAID_CHECK(err == cudaSuccess && status == cudaStreamCaptureStatusNone, "operator ", op,
              ": float16/bfloat16 arrays are computed on float32 copies, which a CUDA graph cannot capture");
}

}  // namespace braid::op::detail
