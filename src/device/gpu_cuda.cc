// The GPU runtime on CUDA (BRAID_WITH_CUDA=ON), linked statically (cudart_static): a binary runs
// on machines without CUDA libraries and finds no GPU there, with the reason.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <mutex>

#include "braid/base/error.h"
#include "braid/device/gpu.h"

namespace braid {
namespace {

struct DeviceCount {
  int count = 0;
  std::string reason;  // why count is 0
};

const DeviceCount& device_count() {
  static const DeviceCount dc = [] {
    DeviceCount d;
    cudaError_t e = cudaGetDeviceCount(&d.count);
    if (e != cudaSuccess) {
      d.count = 0;
      d.reason = e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice
                     ? cat(e == cudaErrorNoDevice ? "no GPU: " : "no CUDA driver: ", cudaGetErrorString(e))
                     : cat("the CUDA runtime cannot list GPUs: ", cudaGetErrorString(e));
      cudaGetLastError();  // clear it
    } else if (d.count == 0) {
      d.reason = "no GPU: the CUDA runtime lists none";
    }
    return d;
  }();
  return dc;
}

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error(cat(what, ": ", cudaGetErrorString(e)));
  }
}

void check_device(int device, const char* what) {
  const DeviceCount& dc = device_count();
  BRAID_CHECK(dc.count > 0, what, " on gpu(", device, "): ", dc.reason, "; use cpu()");
  BRAID_CHECK(device >= 0 && device < dc.count, what, " on gpu(", device, "): this machine has ", dc.count,
              " GPU(s), gpu(0) to gpu(", dc.count - 1, ")");
}

}  // namespace

int num_gpus() { return device_count().count; }

namespace gpu_runtime {

std::string unavailable_reason() { return device_count().reason; }
bool built_with_cuda() { return true; }

void* device_malloc(size_t bytes, int device) {
  check_device(device, "cannot allocate");
  check(cudaSetDevice(device), cat("cudaSetDevice(", device, ")"));
  void* ptr = nullptr;
  check(cudaMalloc(&ptr, bytes == 0 ? 1 : bytes),
        cat("out of memory allocating ", bytes, " bytes on gpu(", device, ")"));
  return ptr;
}

void device_free(void* ptr, int device) {
  if (cudaSetDevice(device) == cudaSuccess) cudaFree(ptr);
}

void* pinned_malloc(size_t bytes) {
  if (num_gpus() == 0) return std::aligned_alloc(64, bytes);
  void* ptr = nullptr;
  check(cudaMallocHost(&ptr, bytes == 0 ? 1 : bytes), cat("cannot allocate ", bytes, " bytes of pinned host memory"));
  return ptr;
}

void pinned_free(void* ptr) {
  if (num_gpus() == 0)
    std::free(ptr);
  else
    cudaFreeHost(ptr);
}

void copy(void* dst, Context dst_ctx, const void* src, Context src_ctx, size_t bytes) {
  const bool from_gpu = !src_ctx.is_cpu_family(), to_gpu = !dst_ctx.is_cpu_family();
  if (from_gpu) check_device(src_ctx.dev_id, "cannot copy");
  if (to_gpu) check_device(dst_ctx.dev_id, "cannot copy");
  const cudaMemcpyKind kind = from_gpu ? (to_gpu ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                                       : (to_gpu ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  // On the calling thread's stream: an engine worker's own, so that the copy queue's copies
  // overlap the compute queue's kernels.
  const std::string what = cat("copy ", src_ctx, " -> ", dst_ctx);
  if (from_gpu && to_gpu && src_ctx.dev_id != dst_ctx.dev_id) {
    check(cudaMemcpyPeerAsync(dst, dst_ctx.dev_id, src, src_ctx.dev_id, bytes, cudaStreamPerThread), what);
  } else {
    check(cudaSetDevice(from_gpu ? src_ctx.dev_id : dst_ctx.dev_id), "cudaSetDevice");
    check(cudaMemcpyAsync(dst, src, bytes, kind, cudaStreamPerThread), what);
  }
  check(cudaStreamSynchronize(cudaStreamPerThread), what);
}

void use_device(int device) {
  if (device >= 0 && device < num_gpus()) cudaSetDevice(device);
}

}  // namespace gpu_runtime
}  // namespace braid
