#pragma once
// Internal: how the threaded engine runs the ready operations of one device. The engine makes
// each context's executor on first use and hands it every operation whose variables are granted.
//
// - A CPU context: one queue served by `cpu_workers` threads (kernels bring their own OpenMP
//   threads), and a communication queue with its own thread for the asynchronous operations
//   (push_async: a KVStore's requests, collectives), so that a request starts as soon as its
//   data is ready instead of waiting behind the kernels queued meanwhile (a gradient's push
//   during the rest of backward).
// - A GPU: a compute queue and a copy queue, each with one worker thread bound to the device.
//   A worker thread's kernels and copies go to its own CUDA stream (the per-thread stream), so
//   copies to and from the GPU overlap its kernels; operations pushed as FnProperty::Copy take
//   the copy queue.
//
// Queues are ordered by priority, then push order.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "braid/base/context.h"
#include "braid/engine/engine.h"

namespace braid::engine::detail {

struct OprBlock;

/// Whether the calling thread is one of an engine's workers.
bool on_engine_worker();

/// A ready queue and the worker threads that run it.
class WorkerQueue {
 public:
  /// `bind` runs first on each new thread (a GPU's workers select their device).
  WorkerQueue(int num_threads, std::function<void(OprBlock*)> run, std::function<void()> bind = {});
  ~WorkerQueue();
  WorkerQueue(const WorkerQueue&) = delete;
  WorkerQueue& operator=(const WorkerQueue&) = delete;
  void enqueue(OprBlock* op);

 private:
  struct Later {
    bool operator()(const OprBlock* a, const OprBlock* b) const;
  };
  void loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::priority_queue<OprBlock*, std::vector<OprBlock*>, Later> ready_;
  int idle_ = 0;
  bool stop_ = false;
  std::function<void(OprBlock*)> run_;
  std::vector<std::thread> threads_;
};

/// Runs the ready operations of one device.
class DeviceExecutor {
 public:
  virtual ~DeviceExecutor() = default;
  virtual void enqueue(OprBlock* op) = 0;
};

/// The executor of `ctx`: `cpu_workers` threads for a CPU context, a compute and a copy worker
/// for a GPU. `run` runs one operation.
std::unique_ptr<DeviceExecutor> make_device_executor(Context ctx, int cpu_workers, std::function<void(OprBlock*)> run);

}  // namespace braid::engine::detail
