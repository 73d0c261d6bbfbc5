#pragma once
// Internal: the threaded engine. Dependencies are tracked per variable; an operation is handed to
// its device's executor (device_executor.h) when every variable has granted it access.
#include <atomic>
#include <condition_variable>
#include <map>

#include "device_executor.h"
#include "var.h"

namespace braid::engine::detail {

struct OprBlock {
  Fn fn;
  AsyncFn async_fn;  // instead of fn, for push_async
  Context ctx;
  FnProperty property = FnProperty::Normal;
  std::vector<Var*> reads, writes;
  int priority = 0;
  uint64_t seq = 0;
  const char* name = "";
  bool always_run = false;       // waits and deletions
  bool run_inline = false;       // a wait's notification: run by whichever thread makes it ready
  Var* var_to_delete = nullptr;  // freed after this operation
  std::atomic<int> wait{0};      // grants still missing, plus one held by push itself
};

class ThreadedEngine final : public Engine {
 public:
  /// `cpu_workers` threads per CPU context (0: BRAID_CPU_WORKER_NTHREADS, default 1);
  /// `max_pending` as in create_engine.
  explicit ThreadedEngine(int cpu_workers = 0, int64_t max_pending = -1);
  ~ThreadedEngine() override;

  VarHandle new_var() override { return new Var(); }
  void push(Fn fn, Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes, int priority,
            const char* name, FnProperty property) override;
  void push_async(AsyncFn fn, Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes,
                  int priority, const char* name) override;
  void delete_var(Fn on_delete, Context ctx, VarHandle var) override;
  void wait_for_var(VarHandle var) override;
  /// Blocks until an operation reading (or writing) `var` may run: an operation run inline by the
  /// thread that makes it ready, the caller's own when nothing is pending (wait.h's wait_to_write
  /// with `write`).
  void wait_for_access(VarHandle var, bool write);
  void wait_for_all() override;
  EngineType type() const override { return EngineType::ThreadedPerDevice; }
  /// Blocks until no operation is pending; never throws (stored errors stay for wait_for_all).
  void wait_idle();

 private:
  void throttle();
  // A pushed operation's block (after throttle), without its function yet.
  OprBlock* new_op(Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes, int priority,
                   const char* name);
  void schedule(OprBlock* op);
  void dispatch(OprBlock* op);
  void run(OprBlock* op);
  void start_async(OprBlock* op);
  void complete(OprBlock* op);

  int cpu_workers_;
  std::mutex devices_mu_;
  std::map<Context, std::unique_ptr<DeviceExecutor>> devices_;
  std::atomic<uint64_t> next_seq_{0};
  std::atomic<int64_t> pending_{0};
  int64_t max_pending_;
  std::atomic<int> throttled_{0};  // pushing threads waiting in throttle()
  std::mutex idle_mu_;
  std::condition_variable idle_cv_;  // pending_ reached 0, or max_pending_ / 2 with throttled_ > 0
  ErrorList errors_;
};

}  // namespace braid::engine::detail
