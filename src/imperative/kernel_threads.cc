// Sharing the cores between CPU contexts. Each context is its own device to the engine, with its
// own worker thread(s), and kernels bring OpenMP threads: with two contexts each running
// OMP_NUM_THREADS threads the cores would be oversubscribed twice over, and libgomp, seeing more
// OpenMP threads than cores, would also stop spinning between parallel regions (see
// docs/performance.md). So a kernel on a CPU context runs with BRAID_CPU_KERNEL_NTHREADS
// threads if set, else the process's compute threads (OpenMP's, or fewer on a busy machine:
// device/cpu_share.h) divided by the CPU contexts used so far and by the workers per context (at
// least 1).
#include "imperative/kernel_threads.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>

#include "braid/base/env.h"
#include "braid/device/cpu_share.h"
#include "braid/ndarray/invoke.h"

namespace braid::imperative {
namespace {

std::atomic<uint64_t> g_low_ids{0};  // CPU contexts 0..63 that ran kernels, as bits
std::mutex g_mu;
std::set<int> g_high_ids;            // the others
std::atomic<int> g_cpu_contexts{0};  // their number

// The process's compute threads: what the CPU share chose for a busy machine, else OpenMP's
// initial value (OMP_NUM_THREADS, or the cores).
int total_threads() {
  static const int total = [] {
    const cpu_share::Share& share = cpu_share::current();
    if (cpu_share::is_busy(share)) cpu_share::announce(stderr);
    return share.threads > 0 ? share.threads : omp_get_max_threads();
  }();
  return total;
}

}  // namespace

void note_context(Context ctx) {
  if (!ctx.is_cpu_family()) return;
  total_threads();  // captured before any kernel thread changes its own count
  if (ctx.dev_id >= 0 && ctx.dev_id < 64) {
    const uint64_t bit = uint64_t{1} << ctx.dev_id;
    if ((g_low_ids.load(std::memory_order_relaxed) & bit) == 0 && (g_low_ids.fetch_or(bit) & bit) == 0)
      ++g_cpu_contexts;
    return;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_high_ids.insert(ctx.dev_id).second) ++g_cpu_contexts;
}

void use_kernel_threads(Context ctx) {
  thread_local int current = 0;
  const int want = nd::kernel_threads(ctx);
  if (want == current) return;
  omp_set_num_threads(want);
  current = want;
}

}  // namespace braid::imperative

namespace braid::nd {

// Declared in braid/ndarray/invoke.h.
int kernel_threads(Context ctx) {
  static const int fixed = static_cast<int>(env_int({"BRAID_CPU_KERNEL_NTHREADS"}, 0));
  static const int workers =
      std::max(1, static_cast<int>(env_int({"BRAID_CPU_WORKER_NTHREADS", "MXNET_CPU_WORKER_NTHREADS"}, 1)));
  if (!ctx.is_cpu_family()) return imperative::total_threads();
  if (fixed > 0) return fixed;
  const int contexts = std::max(1, imperative::g_cpu_contexts.load(std::memory_order_relaxed));
  return std::max(1, imperative::total_threads() / (contexts * workers));
}

}  // namespace braid::nd
