// The GPU runtime on CUDA (BRAID_WITH_CUDA=ON), linked statically (cudart_static): a binary runs
// on machines without CUDA libraries and finds no GPU there, with the reason.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/device/gpu.h"
#include "kernel_graph.h"

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

// The stream of the calling engine worker (null elsewhere: CUDA's per-thread default stream).
thread_local cudaStream_t t_stream = nullptr;

cudaStream_t stream_of_thread() { return t_stream ? t_stream : cudaStreamPerThread; }

// Each GPU's compute stream, set once by its compute worker; copies and synchronize() wait for it.
struct ComputeStreams {
  std::mutex mu;
  std::vector<cudaStream_t> streams;

  cudaStream_t get(int device) {
    std::lock_guard<std::mutex> lock(mu);
    return device < static_cast<int>(streams.size()) ? streams[device] : nullptr;
  }
  void set(int device, cudaStream_t s) {
    std::lock_guard<std::mutex> lock(mu);
    if (static_cast<int>(streams.size()) <= device) streams.resize(device + 1, nullptr);
    streams[device] = s;
  }
};

ComputeStreams& compute_streams() {
  static ComputeStreams* cs = new ComputeStreams;  // never destroyed: workers may outlive statics
  return *cs;
}

// Held while a compute worker captures a CUDA graph (KernelGraph), and by the other threads'
// calls that would touch its stream or synchronize the device meanwhile (CUDA refuses them during
// a capture). Recursive: the capturing thread may allocate.
std::recursive_mutex& capture_mutex() {
  static auto* mu = new std::recursive_mutex;  // never destroyed: workers may outlive statics
  return *mu;
}

// Makes the calling thread's stream wait for what GPU `device`'s compute stream has queued so far.
void wait_for_compute(int device, const std::string& what) {
  cudaStream_t compute = compute_streams().get(device);
  if (!compute || compute == stream_of_thread()) return;
  std::lock_guard<std::recursive_mutex> no_capture(capture_mutex());
  cudaEvent_t queued;
  check(cudaEventCreateWithFlags(&queued, cudaEventDisableTiming), what);
  check(cudaEventRecord(queued, compute), what);
  check(cudaStreamWaitEvent(stream_of_thread(), queued, 0), what);
  cudaEventDestroy(queued);  // released once the wait is done
}

}  // namespace

int num_gpus() { return device_count().count; }

namespace gpu_runtime {

std::string unavailable_reason() { return device_count().reason; }
bool built_with_cuda() { return true; }

void* device_malloc(size_t bytes, int device) {
  check_device(device, "cannot allocate");
  std::lock_guard<std::recursive_mutex> no_capture(capture_mutex());
  check(cudaSetDevice(device), cat("cudaSetDevice(", device, ")"));
  void* ptr = nullptr;
  check(cudaMalloc(&ptr, bytes == 0 ? 1 : bytes),
        cat("out of memory allocating ", bytes, " bytes on gpu(", device, ")"));
  return ptr;
}

MemoryInfo memory_info(int device) {
  check_device(device, "cannot read the memory of");
  std::lock_guard<std::recursive_mutex> no_capture(capture_mutex());
  check(cudaSetDevice(device), cat("cudaSetDevice(", device, ")"));
  MemoryInfo info;
  check(cudaMemGetInfo(&info.free, &info.total), cat("reading the memory of gpu(", device, ")"));
  return info;
}

void device_free(void* ptr, int device) {
  std::lock_guard<std::recursive_mutex> no_capture(capture_mutex());  // cudaFree synchronizes
  if (cudaSetDevice(device) == cudaSuccess) cudaFree(ptr);
}

void* pinned_malloc(size_t bytes) {
  if (num_gpus() == 0) return std::aligned_alloc(64, bytes);
  std::lock_guard<std::recursive_mutex> no_capture(capture_mutex());
  void* ptr = nullptr;
  check(cudaMallocHost(&ptr, bytes == 0 ? 1 : bytes), cat("cannot allocate ", bytes, " bytes of pinned host memory"));
  return ptr;
}

void pinned_free(void* ptr) {
  if (num_gpus() == 0) return std::free(ptr);
  std::lock_guard<std::recursive_mutex> no_capture(capture_mutex());  // cudaFreeHost synchronizes
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
  // After the kernels that write the source or still read the destination.
  if (from_gpu) wait_for_compute(src_ctx.dev_id, what);
  if (to_gpu) wait_for_compute(dst_ctx.dev_id, what);
  if (from_gpu && to_gpu && src_ctx.dev_id != dst_ctx.dev_id) {
    check(cudaMemcpyPeerAsync(dst, dst_ctx.dev_id, src, src_ctx.dev_id, bytes, stream_of_thread()), what);
  } else {
    check(cudaSetDevice(from_gpu ? src_ctx.dev_id : dst_ctx.dev_id), "cudaSetDevice");
    check(cudaMemcpyAsync(dst, src, bytes, kind, stream_of_thread()), what);
  }
  check(cudaStreamSynchronize(stream_of_thread()), what);
}

void bind_worker(int device, bool compute) {
  if (device < 0 || device >= num_gpus()) return;
  check(cudaSetDevice(device), cat("cudaSetDevice(", device, ")"));
  check(cudaStreamCreateWithFlags(&t_stream, cudaStreamNonBlocking), cat("creating a stream on gpu(", device, ")"));
  if (compute) compute_streams().set(device, t_stream);
}

void* current_stream() { return stream_of_thread(); }

void synchronize(int device) {
  const std::string what = cat("a kernel on gpu(", device, ") failed");
  std::lock_guard<std::recursive_mutex> no_capture(capture_mutex());
  if (cudaStream_t compute = compute_streams().get(device)) {
    check(cudaStreamSynchronize(compute), what);
  } else if (device >= 0 && device < num_gpus()) {  // no compute worker (the naive engine): the whole GPU
    check(cudaSetDevice(device), what);
    check(cudaDeviceSynchronize(), what);
  }
}

void copy_on_stream(void* dst, const void* src, size_t bytes) {
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_of_thread()), "copy on a GPU");
}

KernelGraph::~KernelGraph() { reset(); }

void KernelGraph::reset() {
  if (exec_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
  if (graph_) cudaGraphDestroy(static_cast<cudaGraph_t>(graph_));
  exec_ = graph_ = nullptr;
}

bool KernelGraph::capture_and_launch(const std::function<void()>& launch) {
  reset();
  cudaStream_t stream = stream_of_thread();
  std::unique_lock<std::recursive_mutex> capturing(capture_mutex());
  // Thread-local mode: only this worker's calls are checked, the other workers go on as usual.
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  bool launched = true;
  try {
    launch();
  } catch (...) {
    launched = false;
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec = nullptr;
  if (!launched || ended != cudaSuccess || !graph ||
      cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch) != cudaSuccess) {
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // the refused call's error
    return false;
  }
  graph_ = graph;
  exec_ = exec;
  this->launch();
  return true;
}

namespace {
std::atomic<uint64_t> g_graph_launches{0};
}  // namespace

uint64_t KernelGraph::total_launches() { return g_graph_launches.load(); }

void KernelGraph::launch() {
  ++g_graph_launches;
  check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), stream_of_thread()), "launching a CUDA graph");
}

void synchronize_all() {
  for (int d = 0; d < num_gpus(); ++d) synchronize(d);
}

}  // namespace gpu_runtime
}  // namespace braid
