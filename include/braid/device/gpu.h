#pragma once
/// The GPU runtime as the rest of Braid sees it: whether GPUs can be used, device memory, pinned
/// host memory and copies. Built on the CUDA runtime when BRAID_WITH_CUDA is on (src/device/gpu_cuda.cc),
/// else every GPU call fails with a clear error (src/device/gpu_none.cc). See docs/gpu.md.
#include <cstddef>
#include <string>

#include "braid/base/context.h"

namespace braid::gpu_runtime {

/// Why no GPU can be used ("this build of Braid has no CUDA support (BRAID_WITH_CUDA=OFF)",
/// "no CUDA driver: ...", "no GPU: ..."); empty when at least one GPU is there.
std::string unavailable_reason();
/// Whether this build was made with CUDA.
bool built_with_cuda();

/// `bytes` of memory on GPU `device`; throws braid::Error naming the device and the reason when
/// there is no such GPU or it is out of memory.
void* device_malloc(size_t bytes, int device);
void device_free(void* ptr, int device);
/// Free and total memory of GPU `device`, in bytes (MXNet's gpu_memory_info); throws
/// braid::Error when there is no such GPU.
struct MemoryInfo {
  size_t free = 0, total = 0;
};
MemoryInfo memory_info(int device);
/// Page-locked host memory (cpu_pinned contexts) for fast copies; plain host memory when no GPU
/// can be used, so that cpu_pinned works everywhere.
void* pinned_malloc(size_t bytes);
void pinned_free(void* ptr);
/// Copies `bytes` between any two contexts (host or GPU) on the calling thread's stream, after
/// the kernels already queued on the GPUs involved, and waits for the copy.
void copy(void* dst, Context dst_ctx, const void* src, Context src_ctx, size_t bytes);

/// Makes GPU `device` the calling thread's (an engine worker of that GPU) and gives the thread a
/// CUDA stream of its own; `compute` marks the device's compute worker, whose stream copies and
/// synchronize() wait for. Nothing where there is no such GPU.
void bind_worker(int device, bool compute);
/// The calling thread's stream (a cudaStream_t): its own on an engine worker of a GPU, CUDA's
/// per-thread default stream elsewhere.
void* current_stream();
/// Waits for every kernel queued so far on GPU `device`'s compute stream; throws braid::Error
/// with CUDA's message when one of them failed. Kernels run asynchronously: an engine operation
/// on a GPU is complete once its kernels are queued, and what reads its results from elsewhere
/// (a copy, NDArray::wait_to_read, waitall) waits for them here.
void synchronize(int device);
/// synchronize() for every GPU.
void synchronize_all();

}  // namespace braid::gpu_runtime
