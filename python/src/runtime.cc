// braid.runtime's source of truth: which of MXNet's compile-time features (libinfo) this build of
// Braid has, in MXNet's order. Instruction sets are those this code was compiled for (the whole
// library shares the compile options); libraries are what Braid links or loads.
#include "bindings.h"
#include "braid/base/np_shape.h"
#include "braid/device/cpu_share.h"
#include "braid/device/gpu.h"

namespace braid::python {
namespace {

std::vector<std::pair<std::string, bool>> build_features() {
  const bool cuda = gpu_runtime::built_with_cuda();
  return {
      {"CUDA", cuda},
      {"CUDNN", cuda},  // loaded on first use by the GPU convolution kernels of a CUDA build
      {"NCCL", false},
      {"CUDA_RTC", false},
      {"TENSORRT", false},
#ifdef __SSE__
      {"CPU_SSE", true},
#else
      {"CPU_SSE", false},
#endif
#ifdef __SSE2__
      {"CPU_SSE2", true},
#else
      {"CPU_SSE2", false},
#endif
#ifdef __SSE3__
      {"CPU_SSE3", true},
#else
      {"CPU_SSE3", false},
#endif
#ifdef __SSE4_1__
      {"CPU_SSE4_1", true},
#else
      {"CPU_SSE4_1", false},
#endif
#ifdef __SSE4_2__
      {"CPU_SSE4_2", true},
#else
      {"CPU_SSE4_2", false},
#endif
#ifdef __SSE4A__
      {"CPU_SSE4A", true},
#else
      {"CPU_SSE4A", false},
#endif
#ifdef __AVX__
      {"CPU_AVX", true},
#else
      {"CPU_AVX", false},
#endif
#ifdef __AVX2__
      {"CPU_AVX2", true},
#else
      {"CPU_AVX2", false},
#endif
      {"OPENMP", true},  // the kernels' loops run on OpenMP (always linked)
#ifdef __SSE2__
      {"SSE", true},
#else
      {"SSE", false},
#endif
#ifdef __F16C__
      {"F16C", true},
#else
      {"F16C", false},
#endif
      {"JEMALLOC", false},
      {"BLAS_OPEN", true},  // float64 matrix products (op/common/openblas.h)
      {"BLAS_ATLAS", false},
      {"BLAS_MKL", false},
      {"BLAS_APPLE", false},
      {"LAPACK", false},
      // oneDNN serves float32 matrix products only: no MKLDNN operators or array layouts.
      {"MKLDNN", false},
      {"OPENCV", false},
      {"CAFFE", false},
      {"PROFILER", false},
      {"DIST_KVSTORE", BRAID_FEATURE_ZMQ != 0},  // the parameter server's network transport
      {"CXX14", true},
      {"INT64_TENSOR_SIZE", true},  // shapes and element counts are int64
      {"SIGNAL_HANDLER", false},
#ifdef NDEBUG
      {"DEBUG", false},
#else
      {"DEBUG", true},
#endif
      {"TVM_OP", false},
  };
}

}  // namespace

void bind_runtime(py::module_& m) {
  m.def("build_features", &build_features);
  // braid._cpu_share measured before this module loaded OpenMP; the kernels' threads follow it.
  m.def("_use_cpu_measurement", &cpu_share::use_measurement);
  // NumPy shape semantics for shape inference (mx.util.set_np_shape keeps it in step).
  m.def("_set_np_shape", &set_np_shape, py::arg("mode"));
}

}  // namespace braid::python
