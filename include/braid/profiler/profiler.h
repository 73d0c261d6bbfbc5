#pragma once
/// The profiler (MXNet's mx.profiler): while running it records every operator the engine runs
/// (name, device, thread, start and duration), the memory in use per device, and the tasks,
/// frames, events, counters and markers a program declares; dump() writes them as a Chrome trace
/// (chrome://tracing, Perfetto) and dumps() gives per-name statistics (count, total, min, max,
/// average) as a table or JSON.
#include <cstdint>
#include <string>

#include "braid/base/context.h"

namespace braid::profiler {

struct Config {
  std::string filename = "profile.json";
  bool profile_imperative = true;  // operators run by nd.* calls and autograd
  bool profile_symbolic = true;    // operators run by bound executors
  bool profile_memory = true;      // bytes in use per device
  bool profile_api = true;         // what a program declares (tasks, events, counters, markers)
  bool aggregate_stats = false;    // keep per-name statistics for dumps()
  bool continuous_dump = false;    // dump() keeps the events (the file grows) instead of starting over
};

/// Sets what is recorded and where dump() writes; allowed while stopped or running.
void set_config(const Config& config);
Config config();

/// Starts or stops recording (either ends a pause).
void set_state(bool run);
bool running();
/// While paused a running profiler records nothing (MXNet's pause/resume).
void set_paused(bool paused);

/// Microseconds on the profiler's clock (monotonic, since the process started).
int64_t now_us();

/// What an operator run counts as: nd.* and autograd (imperative) or a bound executor (symbolic).
enum class Source { Imperative, Symbolic };

/// Records one operator run (called by the engine's kernels when running()). An operator pushed
/// inside a scope (a Python custom operator's forward) is recorded as "<scope>::<name>" in the
/// "Custom Operator" domain, as MXNet names them.
void record_operator(const char* name, Source source, Context ctx, int64_t start_us, int64_t end_us,
                     const std::string& scope = "");

/// The calling thread's scope for the operators it pushes ("" for none); set_scope returns the
/// previous one.
std::string set_scope(std::string scope);
const std::string& scope();
/// Records a span a program declared (a task, frame or event) in `domain`.
void record_span(const std::string& domain, const std::string& name, const char* category, int64_t start_us,
                 int64_t end_us);
/// One request a KVStore made of its servers (a push, a pull): when it started and ended on this
/// process, the bytes it sent and received, and what the servers said they spent on it: their own
/// work (summing the workers' pushes, running the optimizer) and, in a synchronous round, the
/// wait for the other workers' pushes. The rest of its time is the wire and the queues on both
/// sides. Recorded in the "kvstore" domain as "kvstore <name>" with these figures as arguments.
struct Exchange {
  std::string name;  // "push", "pull", "push rows", "pull rows"
  int64_t key = 0;
  uint64_t bytes = 0;
  int64_t start_us = 0, end_us = 0;
  int64_t server_work_us = -1, server_wait_us = -1;  // -1: not reported
};
void record_exchange(const Exchange& x);

/// Records a counter's new value.
void record_counter(const std::string& domain, const std::string& name, int64_t value);
/// Records an instant marker; `scope` is "global", "process", "thread" or "task".
void record_marker(const std::string& domain, const std::string& name, const std::string& scope);

/// Writes the events recorded so far to the configured file as a Chrome trace (atomically).
/// `finished` ends the profile: the events are dropped after writing (without continuous_dump,
/// every dump drops them).
void dump(bool finished);

/// Per-name statistics since the last reset: format "table" or "json"; sort_by "total", "avg",
/// "min", "max" or "count". Requires aggregate_stats.
std::string dumps(bool reset, const std::string& format, const std::string& sort_by, bool ascending);

}  // namespace braid::profiler
