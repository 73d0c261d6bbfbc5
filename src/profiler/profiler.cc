#include "braid/profiler/profiler.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/storage/storage.h"
#include "profiler/statistics.h"

namespace braid::profiler {
namespace {

struct Recorder {
  std::mutex mu;
  Config config;
  std::vector<nlohmann::json> events;  // Chrome trace events since the last dump that dropped them
  detail::Statistics stats;
};

Recorder& recorder() {
  static Recorder* r = new Recorder();  // never destroyed: engine threads may record at exit
  return *r;
}

std::atomic<bool> g_running{false}, g_paused{false};

const auto g_start = std::chrono::steady_clock::now();

bool recording() { return g_running.load(std::memory_order_relaxed) && !g_paused.load(std::memory_order_relaxed); }

// A small stable number per thread for the trace's rows.
int64_t thread_row() {
  static std::atomic<int64_t> next{0};
  thread_local int64_t row = next.fetch_add(1);
  return row;
}

std::string device_name(Context ctx) { return cat(ctx.dev_type == DeviceType::GPU ? "gpu/" : "cpu/", ctx.dev_id); }

int64_t device_row(Context ctx) { return ctx.dev_type == DeviceType::GPU ? 1000 + ctx.dev_id : ctx.dev_id; }

void add_event(Recorder& r, nlohmann::json event) { r.events.push_back(std::move(event)); }

void on_memory(Context ctx, size_t bytes_in_use) {
  if (!recording()) return;
  Recorder& r = recorder();
  std::unique_lock<std::mutex> lock(r.mu, std::try_to_lock);  // never wait inside the storage lock
  if (!lock.owns_lock() || !r.config.profile_memory) return;
  const std::string name = cat("Memory: ", device_name(ctx));
  add_event(r, {{"name", name},
                {"ph", "C"},
                {"ts", now_us()},
                {"pid", device_row(ctx)},
                {"args", {{name, static_cast<double>(bytes_in_use) / 1024.0}}}});
  if (r.config.aggregate_stats) r.stats.add_memory("Device Storage", name, static_cast<double>(bytes_in_use) / 1024.0);
}

}  // namespace

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - g_start).count();
}

void set_config(const Config& config) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  BRAID_CHECK(!config.filename.empty(), "profiler.set_config: filename must not be empty");
  r.config = config;
}

Config config() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.config;
}

void set_state(bool run) {
  Storage::set_usage_observer(run ? &on_memory : nullptr);
  g_paused.store(false);  // starting or stopping ends a pause (MXNet)
  g_running.store(run);
}

bool running() { return g_running.load(std::memory_order_relaxed); }

void set_paused(bool paused) { g_paused.store(paused); }

namespace {
thread_local std::string t_scope;
}  // namespace

std::string set_scope(std::string scope) {
  std::swap(scope, t_scope);
  return scope;
}

const std::string& scope() { return t_scope; }

void record_operator(const char* name, Source source, Context ctx, int64_t start_us, int64_t end_us,
                     const std::string& scope) {
  if (!recording()) return;
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!(source == Source::Imperative ? r.config.profile_imperative : r.config.profile_symbolic)) return;
  const std::string shown = scope.empty() ? std::string(name) : cat(scope, "::", name);
  const char* domain = scope.empty() ? "operator" : "Custom Operator";
  add_event(r, {{"name", shown},
                {"cat", domain},
                {"ph", "X"},
                {"ts", start_us},
                {"dur", end_us - start_us},
                {"pid", device_row(ctx)},
                {"tid", thread_row()},
                {"args", {{"device", device_name(ctx)}}}});
  if (r.config.aggregate_stats) r.stats.add_time(domain, shown, static_cast<double>(end_us - start_us) / 1000.0);
}

void record_span(const std::string& domain, const std::string& name, const char* category, int64_t start_us,
                 int64_t end_us) {
  if (!recording()) return;
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.config.profile_api) return;
  add_event(r, {{"name", name},
                {"cat", category},
                {"ph", "X"},
                {"ts", start_us},
                {"dur", end_us - start_us},
                {"pid", -1},
                {"tid", thread_row()},
                {"args", {{"domain", domain}}}});
  if (r.config.aggregate_stats)
    r.stats.add_time(domain.empty() ? category : domain, name, static_cast<double>(end_us - start_us) / 1000.0);
}

void record_exchange(const Exchange& x) {
  if (!recording()) return;
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  const std::string name = cat("kvstore ", x.name);
  nlohmann::json args{{"key", x.key}, {"bytes", x.bytes}};
  if (x.server_work_us >= 0) args["server_work_us"] = x.server_work_us;
  if (x.server_wait_us >= 0) args["server_wait_us"] = x.server_wait_us;
  add_event(r, {{"name", name},
                {"cat", "kvstore"},
                {"ph", "X"},
                {"ts", x.start_us},
                {"dur", x.end_us - x.start_us},
                {"pid", -2},
                {"tid", thread_row()},
                {"args", std::move(args)}});
  if (r.config.aggregate_stats) r.stats.add_time("kvstore", name, static_cast<double>(x.end_us - x.start_us) / 1000.0);
}

void record_counter(const std::string& domain, const std::string& name, int64_t value) {
  if (!recording()) return;
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.config.profile_api) return;
  add_event(r,
            {{"name", name}, {"cat", domain}, {"ph", "C"}, {"ts", now_us()}, {"pid", -1}, {"args", {{name, value}}}});
}

void record_marker(const std::string& domain, const std::string& name, const std::string& scope) {
  static const char* const kScopes[][2] = {{"global", "g"}, {"process", "p"}, {"thread", "t"}, {"task", "t"}};
  std::string s;
  for (const auto& [word, letter] : kScopes)
    if (scope == word) s = letter;
  BRAID_CHECK(!s.empty(), "profiler Marker.mark: scope '", scope, "' is not one of global, process, thread, task");
  if (!recording()) return;
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.config.profile_api) return;
  add_event(
      r,
      {{"name", name}, {"cat", domain}, {"ph", "i"}, {"s", s}, {"ts", now_us()}, {"pid", -1}, {"tid", thread_row()}});
}

void dump(bool finished) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  nlohmann::json trace{{"traceEvents", r.events}, {"displayTimeUnit", "ms"}};
  io::write_file_atomically(r.config.filename, trace.dump());
  if (finished || !r.config.continuous_dump) r.events.clear();
}

std::string dumps(bool reset, const std::string& format, const std::string& sort_by, bool ascending) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  BRAID_CHECK(r.config.aggregate_stats,
              "profiler.dumps: statistics are kept only with profiler.set_config(aggregate_stats=True)");
  std::string out = r.stats.render(format, sort_by, ascending);
  if (reset) r.stats.clear();
  return out;
}

}  // namespace braid::profiler
