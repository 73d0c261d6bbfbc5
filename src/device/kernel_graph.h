#pragma once
// Internal: CUDA graphs for the GPU workers. What a function launches on the calling worker's
// stream is captured once into a graph and then relaunched as a whole, one launch instead of one
// per kernel (a hybridized block's static forward or backward, src/symbol/graph_replay.cc).
#include <cstddef>
#include <cstdint>
#include <functional>

namespace braid::gpu_runtime {

class KernelGraph {
 public:
  KernelGraph() = default;
  ~KernelGraph();
  KernelGraph(const KernelGraph&) = delete;
  KernelGraph& operator=(const KernelGraph&) = delete;

  /// Captures the kernels `launch` queues on the calling thread's stream and launches them.
  /// Returns false, with nothing captured or run, where CUDA refused a call `launch` made while
  /// capturing (a synchronization, an allocation) or `launch` threw: run `launch` as usual then.
  bool capture_and_launch(const std::function<void()>& launch);
  bool captured() const { return exec_ != nullptr; }
  /// Launches the captured graph again on the calling thread's stream.
  void launch();
  void reset();
  /// Graph launches in this process so far (captures included).
  static uint64_t total_launches();

 private:
  void* graph_ = nullptr;  // cudaGraph_t
  void* exec_ = nullptr;   // cudaGraphExec_t
};

/// Copies `bytes` between two buffers of the calling worker's GPU, queued on its stream.
void copy_on_stream(void* dst, const void* src, size_t bytes);

}  // namespace braid::gpu_runtime
