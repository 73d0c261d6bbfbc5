#include "threaded_engine.h"

#include "braid/base/env.h"
#include "braid/device/gpu.h"
#include "wait.h"

namespace braid::engine::detail {
ThreadedEngine::ThreadedEngine(int cpu_workers, int64_t max_pending)
    : cpu_workers_(cpu_workers > 0
                       ? cpu_workers
                       : static_cast<int>(env_int({"BRAID_CPU_WORKER_NTHREADS", "MXNET_CPU_WORKER_NTHREADS"}, 1))),
      max_pending_(max_pending >= 0 ? max_pending : env_int({"BRAID_ENGINE_MAX_PENDING"}, kDefaultMaxPending)) {
  if (cpu_workers_ < 1) cpu_workers_ = 1;
  if (max_pending_ < 0) max_pending_ = 0;
}

// Stopping an executor joins its threads, and a thread may be releasing the last reference to an
// array as it stops (an asynchronous operation's closure, freed after its `done` ran): that
// array's deletion is scheduled here again and needs devices_mu_. So the executors are stopped
// without holding it, until no new one was made meanwhile.
ThreadedEngine::~ThreadedEngine() {
  for (;;) {
    wait_idle();
    std::map<Context, std::unique_ptr<DeviceExecutor>> stopping;
    {
      std::lock_guard<std::mutex> lock(devices_mu_);
      if (devices_.empty()) return;
      stopping.swap(devices_);
    }
  }
}

OprBlock* ThreadedEngine::new_op(Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes,
                                 int priority, const char* name) {
  throttle();
  auto* op = new OprBlock();
  op->ctx = ctx;
  op->priority = priority;
  op->name = name;
  normalize_deps(reads, writes, op->reads, op->writes);
  return op;
}

void ThreadedEngine::push(Fn fn, Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes,
                          int priority, const char* name, FnProperty property) {
  OprBlock* op = new_op(ctx, reads, writes, priority, name);
  op->fn = std::move(fn);
  op->property = property;
  schedule(op);
}

void ThreadedEngine::push_async(AsyncFn fn, Context ctx, std::span<const VarHandle> reads,
                                std::span<const VarHandle> writes, int priority, const char* name) {
  OprBlock* op = new_op(ctx, reads, writes, priority, name);
  op->async_fn = std::move(fn);
  schedule(op);
}

void ThreadedEngine::delete_var(Fn on_delete, Context ctx, VarHandle var) {
  auto* op = new OprBlock();
  op->fn = std::move(on_delete);
  op->ctx = ctx;
  op->writes = {var};
  op->always_run = true;
  op->var_to_delete = var;
  op->name = "delete_var";
  schedule(op);
}

// A loop that never reads a result would otherwise queue its whole run, holding the memory of
// every queued operation's outputs (gigabytes for an epoch of LeNet) before the first completes.
// Waiting for half the queue to drain keeps the pushing thread ahead without waking it per op.
void ThreadedEngine::throttle() {
  if (max_pending_ == 0 || on_engine_worker() || pending_.load(std::memory_order_relaxed) < max_pending_) return;
  std::unique_lock<std::mutex> lock(idle_mu_);
  throttled_.fetch_add(1);
  idle_cv_.wait(lock, [this] { return pending_.load() <= max_pending_ / 2; });
  throttled_.fetch_sub(1);
}

void ThreadedEngine::schedule(OprBlock* op) {
  op->seq = next_seq_.fetch_add(1, std::memory_order_relaxed);
  pending_.fetch_add(1, std::memory_order_relaxed);
  op->wait.store(static_cast<int>(op->reads.size() + op->writes.size()) + 1, std::memory_order_relaxed);
  int granted = 0;
  for (Var* v : op->reads) {
    std::lock_guard<std::mutex> lock(v->mu);
    if (!v->running_write && v->pending.empty()) {
      ++v->running_reads;
      ++granted;
    } else {
      v->pending.emplace_back(op, false);
    }
  }
  for (Var* v : op->writes) {
    std::lock_guard<std::mutex> lock(v->mu);
    if (!v->running_write && v->running_reads == 0 && v->pending.empty()) {
      v->running_write = true;
      ++granted;
    } else {
      v->pending.emplace_back(op, true);
    }
  }
  if (op->wait.fetch_sub(granted + 1, std::memory_order_acq_rel) == granted + 1) dispatch(op);
}

void ThreadedEngine::dispatch(OprBlock* op) {
  if (op->run_inline) {
    run(op);
    return;
  }
  DeviceExecutor* executor;
  {
    std::lock_guard<std::mutex> lock(devices_mu_);
    auto& slot = devices_[op->ctx];
    if (!slot) slot = make_device_executor(op->ctx, cpu_workers_, [this](OprBlock* o) { run(o); });
    executor = slot.get();
  }
  executor->enqueue(op);
}

void ThreadedEngine::run(OprBlock* op) {
  if (op->async_fn) {
    start_async(op);
    return;
  }
  execute(op->fn, op->reads, op->writes, op->always_run, errors_);
  complete(op);
}

// The operation completes (its variables are released) when its function calls `done`.
void ThreadedEngine::start_async(OprBlock* op) {
  if (ErrorRef inherited = inherited_error(op->reads)) {
    mark_writes(op->writes, inherited);
    complete(op);
    return;
  }
  auto called = std::make_shared<std::atomic<bool>>(false);
  Done done = [this, op, called](std::exception_ptr e) {
    if (called->exchange(true)) return;  // a second call is ignored
    mark_writes(op->writes, e ? errors_.add(std::move(e), op->writes.empty()) : nullptr);
    complete(op);
  };
  AsyncFn fn = std::move(op->async_fn);  // `done` may delete op before fn returns
  try {
    fn(done);
  } catch (...) {
    done(std::current_exception());
  }
}

namespace {

// Grants the variable to the operations at the head of its queue that may now run: one writer,
// or every reader up to the next writer. Called with v->mu held.
void grant(Var* v, std::vector<OprBlock*>& ready) {
  while (!v->pending.empty() && !v->running_write) {
    auto [op, is_write] = v->pending.front();
    if (is_write) {
      if (v->running_reads > 0) break;
      v->running_write = true;
      v->pending.pop_front();
      ready.push_back(op);
      break;
    }
    ++v->running_reads;
    v->pending.pop_front();
    ready.push_back(op);
  }
}

}  // namespace

void ThreadedEngine::complete(OprBlock* op) {
  std::vector<OprBlock*> ready;
  for (Var* v : op->reads) {
    std::lock_guard<std::mutex> lock(v->mu);
    --v->running_reads;
    grant(v, ready);
  }
  for (Var* v : op->writes) {
    std::lock_guard<std::mutex> lock(v->mu);
    v->running_write = false;
    grant(v, ready);
  }
  delete op->var_to_delete;
  for (OprBlock* r : ready)
    if (r->wait.fetch_sub(1, std::memory_order_acq_rel) == 1) dispatch(r);
  delete op;
  // Sequentially consistent with throttle(): either the waiter sees the new count or this sees it.
  const int64_t left = pending_.fetch_sub(1) - 1;
  if (left == 0 || (left == max_pending_ / 2 && throttled_.load() > 0)) {
    std::lock_guard<std::mutex> lock(idle_mu_);
    idle_cv_.notify_all();
  }
}

void ThreadedEngine::wait_for_access(VarHandle var, bool write) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  auto* op = new OprBlock();
  op->fn = [&] {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_one();
  };
  op->ctx = cpu();
  (write ? op->writes : op->reads) = {var};
  // A read leaves the variable's state alone; a write clears a stored error, as any write does.
  op->always_run = !write;
  // Not queued for cpu(0)'s worker, which may be busy with another context's caller's work: the
  // thread that completes the variable's last use wakes the caller itself.
  op->run_inline = true;
  op->name = write ? "wait_to_write" : "wait_for_var";
  schedule(op);
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
}

void ThreadedEngine::wait_for_var(VarHandle var) {
  wait_for_access(var, false);
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lock(var->mu);
    e = var->live_error();
    if (e) *var->error = nullptr;
  }
  if (e) std::rethrow_exception(e);
}

void wait_to_write(VarHandle var) {
  Engine& engine = Engine::get();
  if (auto* threaded = dynamic_cast<ThreadedEngine*>(&engine)) return threaded->wait_for_access(var, true);
  // The naive engine runs every operation as it is pushed: a no-op write clears a stored error.
  engine.push([] {}, cpu(), {}, std::span<const VarHandle>(&var, 1), 0, "wait_to_write");
}

void ThreadedEngine::wait_idle() {
  std::unique_lock<std::mutex> lock(idle_mu_);
  idle_cv_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
}

void ThreadedEngine::wait_for_all() {
  wait_idle();
  gpu_runtime::synchronize_all();  // GPU operations complete when their kernels are queued
  errors_.rethrow_and_clear();
}

}  // namespace braid::engine::detail
