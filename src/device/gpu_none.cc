// The GPU runtime of a build without CUDA (BRAID_WITH_CUDA=OFF): no GPU, clear errors.
#include <cstdlib>

#include "braid/base/error.h"
#include "braid/device/gpu.h"
#include "kernel_graph.h"

namespace braid {

int num_gpus() { return 0; }

namespace gpu_runtime {

std::string unavailable_reason() {
  return "this build of Braid has no CUDA support (configure with -DBRAID_WITH_CUDA=ON where the CUDA toolkit is)";
}
bool built_with_cuda() { return false; }

void* device_malloc(size_t bytes, int device) {
  throw Error(cat("cannot allocate ", bytes, " bytes on gpu(", device, "): ", unavailable_reason(), "; use cpu()"));
}
void device_free(void*, int) {}
MemoryInfo memory_info(int device) {
  throw Error(cat("cannot read the memory of gpu(", device, "): ", unavailable_reason()));
}

void* pinned_malloc(size_t bytes) { return std::aligned_alloc(64, bytes); }
void pinned_free(void* ptr) { std::free(ptr); }

void copy(void*, Context dst_ctx, const void*, Context src_ctx, size_t) {
  throw Error(cat("cannot copy from ", src_ctx, " to ", dst_ctx, ": ", unavailable_reason()));
}

void bind_worker(int, bool) {}
void* current_stream() { return nullptr; }
void synchronize(int) {}
void synchronize_all() {}

void copy_on_stream(void*, const void*, size_t) { throw Error(cat("cannot copy on a GPU: ", unavailable_reason())); }

KernelGraph::~KernelGraph() = default;
bool KernelGraph::capture_and_launch(const std::function<void()>&) { return false; }
void KernelGraph::launch() {}
void KernelGraph::reset() {}
uint64_t KernelGraph::total_launches() { return 0; }

}  // namespace gpu_runtime
}  // namespace braid
