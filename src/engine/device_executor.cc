#include "device_executor.h"

#include "braid/device/gpu.h"
#include "threaded_engine.h"

namespace braid::engine::detail {
namespace {

thread_local bool t_engine_worker = false;

}  // namespace

bool on_engine_worker() { return t_engine_worker; }

bool WorkerQueue::Later::operator()(const OprBlock* a, const OprBlock* b) const {
  return a->priority != b->priority ? a->priority < b->priority : a->seq > b->seq;
}

WorkerQueue::WorkerQueue(int num_threads, std::function<void(OprBlock*)> run, std::function<void()> bind)
    : run_(std::move(run)) {
  for (int i = 0; i < num_threads; ++i)
    threads_.emplace_back([this, bind] {
      if (bind) bind();
      loop();
    });
}

WorkerQueue::~WorkerQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerQueue::enqueue(OprBlock* op) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ready_.push(op);
    wake = idle_ > 0;
  }
  if (wake) cv_.notify_one();
}

void WorkerQueue::loop() {
  t_engine_worker = true;
  for (;;) {
    OprBlock* op;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++idle_;
      cv_.wait(lock, [this] { return stop_ || !ready_.empty(); });
      --idle_;
      if (ready_.empty()) return;  // stopping
      op = ready_.top();
      ready_.pop();
    }
    run_(op);
  }
}

namespace {

class CpuExecutor final : public DeviceExecutor {
 public:
  CpuExecutor(int workers, std::function<void(OprBlock*)> run) : run_(run), queue_(workers, std::move(run)) {}
  void enqueue(OprBlock* op) override { (op->async_fn ? communication() : queue_).enqueue(op); }

 private:
  // Started by the first asynchronous operation: most contexts never communicate.
  WorkerQueue& communication() {
    std::call_once(started_, [this] { communication_ = std::make_unique<WorkerQueue>(1, run_); });
    return *communication_;
  }

  std::function<void(OprBlock*)> run_;
  WorkerQueue queue_;
  std::once_flag started_;
  std::unique_ptr<WorkerQueue> communication_;
};

class GpuExecutor final : public DeviceExecutor {
 public:
  GpuExecutor(int device, const std::function<void(OprBlock*)>& run)
      : compute_(1, run, [device] { gpu_runtime::bind_worker(device, true); }),
        copy_(1, run, [device] { gpu_runtime::bind_worker(device, false); }) {}
  void enqueue(OprBlock* op) override { (op->property == FnProperty::Copy ? copy_ : compute_).enqueue(op); }

 private:
  WorkerQueue compute_, copy_;
};

}  // namespace

std::unique_ptr<DeviceExecutor> make_device_executor(Context ctx, int cpu_workers, std::function<void(OprBlock*)> run) {
  if (ctx.is_cpu_family()) return std::make_unique<CpuExecutor>(cpu_workers, std::move(run));
  return std::make_unique<GpuExecutor>(ctx.dev_id, std::move(run));
}

}  // namespace braid::engine::detail
