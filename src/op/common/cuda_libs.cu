// Loading cuBLAS and cuDNN on first use, and each GPU worker's handles and scratch memory
// (cuda_libs.cuh).
#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

#include "braid/base/env.h"
#include "braid/device/gpu.h"
#include "op/common/cuda_launch.cuh"
#include "op/common/cuda_libs.cuh"

namespace braid::op::cuda {
namespace {

// The sonames this build was compiled against, then the same files in the toolkit it was
// compiled with (not on the loader's path on every machine).
void* open_library(const char* soname) {
  const std::vector<std::string> candidates = {soname, cat(BRAID_CUDA_LIBRARY_DIR, "/", soname)};
  std::string errors;
  for (const auto& path : candidates) {
    if (void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
    errors += cat("\n  ", dlerror());
  }
  throw Error(cat("the GPU kernels need ", soname, ", which cannot be loaded:", errors,
                  "\nput the folder holding it on LD_LIBRARY_PATH (docs/gpu.md)"));
}

template <class Table>
Table load(const char* soname, void (*fill)(Table&, void*)) {
  Table t;
  fill(t, open_library(soname));
  return t;
}

void* symbol(void* lib, const char* name, const char* soname) {
  void* f = dlsym(lib, name);
  BRAID_CHECK(f, soname, " has no function ", name, ": it is older than the version Braid was built with");
  return f;
}

#define BRAID_STRINGIFY_VALUE(x) #x
#define BRAID_STRINGIFY(x) BRAID_STRINGIFY_VALUE(x)
#define BRAID_CUDA_LIB_FILL(f) t.f = reinterpret_cast<decltype(t.f)>(symbol(lib, #f, soname));

const char* const kCublasSoname = "libcublas.so." BRAID_STRINGIFY(CUBLAS_VER_MAJOR);
const char* const kCudnnSoname = "libcudnn.so." BRAID_STRINGIFY(CUDNN_MAJOR);

void fill_cublas(Cublas& t, void* lib) {
  const char* soname = kCublasSoname;
  BRAID_CUBLAS_FUNCTIONS(BRAID_CUDA_LIB_FILL)
  BRAID_CUDA_LIB_FILL(cublasGemmEx)
  BRAID_CUDA_LIB_FILL(cublasGemmStridedBatchedEx)
}

void fill_cudnn(Cudnn& t, void* lib) {
  const char* soname = kCudnnSoname;
  BRAID_CUDNN_FUNCTIONS(BRAID_CUDA_LIB_FILL)
}

#undef BRAID_CUDA_LIB_FILL

int current_device() {
  int device = 0;
  cudaGetDevice(&device);
  return device;
}

// One per worker thread and device (a worker serves one device, but stays correct if not).
template <class Handle>
struct PerDevice {
  std::vector<Handle> handles;
  Handle& at(int device) {
    if (handles.size() <= static_cast<size_t>(device)) handles.resize(device + 1, nullptr);
    return handles[device];
  }
};

struct Scratch {
  void* ptr = nullptr;
  size_t bytes = 0;
};

}  // namespace

const Cublas& cublas() {
  static const Cublas table = load<Cublas>(kCublasSoname, fill_cublas);
  return table;
}

const Cudnn& cudnn() {
  static const Cudnn table = load<Cudnn>(kCudnnSoname, fill_cudnn);
  return table;
}

// Handles (and scratch memory) are kept until the process ends: freeing them at thread exit
// could come after CUDA has torn the context down.
cublasHandle_t cublas_handle() {
  thread_local PerDevice<cublasHandle_t> handles;
  cublasHandle_t& h = handles.at(current_device());
  if (!h) {
    check_cublas(cublas().cublasCreate_v2(&h), "cublasCreate");
    check_cublas(cublas().cublasSetStream_v2(h, stream()), "cublasSetStream");
  }
  return h;
}

cudnnHandle_t cudnn_handle() {
  thread_local PerDevice<cudnnHandle_t> handles;
  cudnnHandle_t& h = handles.at(current_device());
  if (!h) {
    check_cudnn(cudnn().cudnnCreate(&h), "cudnnCreate");
    check_cudnn(cudnn().cudnnSetStream(h, stream()), "cudnnSetStream");
  }
  return h;
}

void* workspace(size_t bytes) {
  thread_local std::vector<Scratch> per_device;
  const int device = current_device();
  if (per_device.size() <= static_cast<size_t>(device)) per_device.resize(device + 1);
  Scratch& s = per_device[device];
  if (bytes > s.bytes) {
    // The previous buffer may still be in use by queued work: wait before giving it back.
    cudaStreamSynchronize(stream());
    if (s.ptr) gpu_runtime::device_free(s.ptr, device);
    s.ptr = nullptr;
    s.ptr = gpu_runtime::device_malloc(bytes, device);
    s.bytes = bytes;
  }
  return s.ptr;
}

bool allow_tf32() {
  static const bool allowed = env_int({"BRAID_GPU_TF32"}, 0) != 0;
  return allowed;
}

void check_cublas(cublasStatus_t status, const char* op) {
  BRAID_CHECK(status == CUBLAS_STATUS_SUCCESS, "operator ", op,
              ": cuBLAS failed: ", cublas().cublasGetStatusString(status));
}

void check_cudnn(cudnnStatus_t status, const char* op) {
  BRAID_CHECK(status == CUDNN_STATUS_SUCCESS, "operator ", op, ": cuDNN failed: ", cudnn().cudnnGetErrorString(status));
}

}  // namespace braid::op::cuda
