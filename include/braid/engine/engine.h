#pragma once
/// The asynchronous dependency engine (MXNet's Engine). Every operation is pushed with the
/// variables it reads and writes; operations on disjoint variables run in parallel, those sharing a
/// variable run in push order (readers of the same version concurrently). An exception thrown by an
/// operation is kept on the variables it writes, skips the operations that read them, and is
/// re-thrown by the next wait_for_var on them and by wait_for_all; the engine keeps running.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "braid/base/context.h"

namespace braid::engine {

/// A dependency variable: one per array chunk (and per resource such as a random generator).
/// Created by Engine::new_var, owned by the engine, released by Engine::delete_var.
struct Var;
using VarHandle = Var*;

/// Work run by the engine. It may throw; the exception is stored as described above.
using Fn = std::function<void()>;
/// Ends an asynchronous operation: called once, from any thread, with nullptr or its error.
using Done = std::function<void(std::exception_ptr error)>;
/// Work that starts on the engine and finishes later (a network request answered by another
/// thread): it returns once started and calls `done` when finished. If it throws before calling
/// `done`, the exception is the operation's error; calls of `done` after the first are ignored.
using AsyncFn = std::function<void(Done done)>;

enum class EngineType { Naive, ThreadedPerDevice };

/// What kind of work an operation is. On a GPU context a Copy (a transfer to or from the device)
/// runs on the device's copy queue and stream, overlapping its kernels; elsewhere it is Normal.
enum class FnProperty { Normal, Copy };

class Engine {
 public:
  virtual ~Engine() = default;

  virtual VarHandle new_var() = 0;
  /// Schedules `fn` on `ctx` once all earlier writes to `reads` and earlier reads and writes of
  /// `writes` are done. A variable in both lists counts as written. Higher `priority` runs first
  /// among ready operations. `name` shows in error messages.
  virtual void push(Fn fn, Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes,
                    int priority = 0, const char* name = "", FnProperty property = FnProperty::Normal) = 0;
  /// As push, but the operation lasts until `fn` calls its `done`: the variables stay held until
  /// then, while the worker that started it goes on with other work (MXNet's PushAsync, used by
  /// communication). On a CPU context it starts on the context's communication thread, never
  /// queued behind kernels. The naive engine waits for `done` before returning.
  virtual void push_async(AsyncFn fn, Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes,
                          int priority = 0, const char* name = "") = 0;
  /// Runs `on_delete` (e.g. freeing memory) after every pending use of `var`, then frees `var`.
  virtual void delete_var(Fn on_delete, Context ctx, VarHandle var) = 0;
  /// Blocks until every operation pushed so far that writes `var` is done; re-throws (once) an
  /// exception stored on `var`.
  virtual void wait_for_var(VarHandle var) = 0;
  /// Blocks until every operation pushed so far is done; re-throws (once) the first exception
  /// raised since the last wait_for_all.
  virtual void wait_for_all() = 0;
  virtual EngineType type() const = 0;

  /// The process-wide engine, chosen on first use by BRAID_ENGINE_TYPE (or MXNET_ENGINE_TYPE):
  /// "NaiveEngine" (synchronous, for debugging) or "ThreadedEnginePerDevice" (the default;
  /// "ThreadedEngine" is accepted as an alias).
  static Engine& get();
};

/// A new engine of the given type, independent of Engine::get() (for tests and benchmarks).
/// `cpu_workers`: threads per CPU context of the threaded engine (0: BRAID_CPU_WORKER_NTHREADS or
/// MXNET_CPU_WORKER_NTHREADS, default 1; kernels bring their own threads).
/// `max_pending`: how far the pushing threads may run ahead of the threaded engine: a push from
/// outside the engine's workers that finds this many operations pending waits until half of them
/// are done (-1: BRAID_ENGINE_MAX_PENDING, default kDefaultMaxPending; 0: unbounded).
std::unique_ptr<Engine> create_engine(EngineType type, int cpu_workers = 0, int64_t max_pending = -1);
inline constexpr int64_t kDefaultMaxPending = 128;
/// Parses an engine name as accepted in BRAID_ENGINE_TYPE; throws naming the valid names.
EngineType engine_type_from_name(const std::string& name);

}  // namespace braid::engine
