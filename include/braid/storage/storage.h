#pragma once
/// Device memory: pooled, 64-byte aligned allocation per context with in-use and peak figures.
/// Freed blocks go back to a per-context pool keyed by rounded size and are reused. A host
/// context's pool keeps at most BRAID_STORAGE_POOL_MB MiB (default: a quarter of the machine's
/// memory), giving the oldest blocks back beyond that; GPU pools keep all and give it back when
/// an allocation fails. BRAID_STORAGE_POOL=0 returns memory to the system at once (sanitizers).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "braid/base/context.h"

namespace braid {

/// One allocation. `size` is what was asked for; the block may be larger (see rounding).
struct StorageHandle {
  void* ptr = nullptr;
  size_t size = 0;
  Context ctx;
};

struct StorageStats {
  size_t bytes_in_use = 0;  // handed out and not yet freed
  size_t peak_bytes_in_use = 0;
  size_t bytes_pooled = 0;  // freed, kept for reuse
  uint64_t allocations = 0;
  uint64_t pool_hits = 0;
};

class Storage {
 public:
  static constexpr size_t kAlignment = 64;

  /// The process-wide storage manager.
  static Storage& get();

  /// Allocates `size` bytes (0 allowed) on `ctx`; throws braid::Error on failure or a GPU context
  /// in a build without CUDA.
  StorageHandle alloc(size_t size, Context ctx);
  /// Returns a block to its context's pool.
  void free(const StorageHandle& h);
  /// Gives every pooled block of `ctx` back to the system.
  void release_pool(Context ctx);
  /// Keeps at most `bytes` of freed blocks of `ctx` for reuse from now on (the oldest go back).
  void set_pool_limit(Context ctx, size_t bytes);
  StorageStats stats(Context ctx) const;
  /// Resets the peak to the current bytes in use.
  void reset_peak(Context ctx);

  /// Called after every allocation and free with the context's bytes in use (the profiler's
  /// memory figures); null (the default) for none. Called under the storage lock: keep it short.
  using UsageObserver = void (*)(Context ctx, size_t bytes_in_use);
  static void set_usage_observer(UsageObserver observer);

  Storage();
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace braid
