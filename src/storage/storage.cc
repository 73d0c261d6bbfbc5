#include "braid/storage/storage.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/device/gpu.h"

namespace braid {
namespace {

std::atomic<Storage::UsageObserver> g_usage_observer{nullptr};

// Blocks are rounded up so that nearby sizes share a pool bucket: to 4 KiB below 1 MiB, to a
// eighth of the next power of two above, which bounds the waste to 12.5%.
size_t rounded_size(size_t size) {
  if (size <= 4096) return 4096;
  if (size <= (1u << 20)) return (size + 4095) & ~size_t{4095};
  size_t p = 1;
  while (p < size) p <<= 1;
  size_t step = p / 8;
  return (size + step - 1) / step * step;
}

// Memory from the system for `ctx`: host memory, pinned host memory, or GPU memory.
void* system_alloc(size_t bytes, Context ctx) {
  switch (ctx.dev_type) {
    case DeviceType::GPU:
      return gpu_runtime::device_malloc(bytes, ctx.dev_id);
    case DeviceType::CPUPinned:
      return gpu_runtime::pinned_malloc(bytes);
    default:
      return std::aligned_alloc(Storage::kAlignment, bytes);
  }
}

void system_free(void* ptr, Context ctx) {
  switch (ctx.dev_type) {
    case DeviceType::GPU:
      gpu_runtime::device_free(ptr, ctx.dev_id);
      break;
    case DeviceType::CPUPinned:
      gpu_runtime::pinned_free(ptr);
      break;
    default:
      std::free(ptr);
  }
}

struct FreeBlock {
  size_t size;
  void* ptr;
};

// The freed blocks of one context: reused by size, given back to the system oldest first
// when they exceed the context's limit.
struct Pool {
  std::list<FreeBlock> by_age;                                                          // oldest first
  std::unordered_map<size_t, std::vector<std::list<FreeBlock>::iterator>> free_blocks;  // rounded size -> blocks
  std::unordered_map<void*, size_t> live;                                               // ptr -> rounded size
  StorageStats stats;

  void* take(size_t rsize) {
    auto it = free_blocks.find(rsize);
    if (it == free_blocks.end() || it->second.empty()) return nullptr;
    auto block = it->second.back();
    it->second.pop_back();
    void* ptr = block->ptr;
    by_age.erase(block);
    stats.bytes_pooled -= rsize;
    return ptr;
  }

  void keep(size_t rsize, void* ptr) {
    by_age.push_back({rsize, ptr});
    free_blocks[rsize].push_back(std::prev(by_age.end()));
    stats.bytes_pooled += rsize;
  }

  // Gives blocks back, oldest first, until at most `limit` bytes stay pooled.
  void trim(size_t limit, Context ctx) {
    while (stats.bytes_pooled > limit) {
      auto oldest = by_age.begin();
      auto& same_size = free_blocks[oldest->size];
      same_size.erase(std::find(same_size.begin(), same_size.end(), oldest));
      stats.bytes_pooled -= oldest->size;
      system_free(oldest->ptr, ctx);
      by_age.erase(oldest);
    }
  }
};

// Bytes of freed host memory kept for reuse: BRAID_STORAGE_POOL_MB, by default a quarter of
// the machine's memory; GPU pools keep everything (they give it back when an allocation fails).
size_t pool_limit(Context ctx) {
  if (ctx.dev_type == DeviceType::GPU) return SIZE_MAX;
  const long long mb = env_int({"BRAID_STORAGE_POOL_MB"}, -1);
  if (mb >= 0) return static_cast<size_t>(mb) << 20;
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page_size) / 4 : SIZE_MAX;
}

}  // namespace

struct Storage::Impl {
  mutable std::mutex mu;
  std::map<Context, Pool> pools;
  bool pooling = env_int({"BRAID_STORAGE_POOL"}, 1) != 0;
  std::map<Context, size_t> limits;

  size_t limit(Context ctx) {
    auto it = limits.find(ctx);
    return it != limits.end() ? it->second : limits.emplace(ctx, pool_limit(ctx)).first->second;
  }
};

Storage& Storage::get() {
  // Never destroyed: arrays in static storage may be freed after main returns.
  static Storage* s = new Storage();
  return *s;
}

Storage::Storage() : impl_(std::make_unique<Impl>()) {}
Storage::~Storage() {
  for (auto& [ctx, pool] : impl_->pools) pool.trim(0, ctx);
}

StorageHandle Storage::alloc(size_t size, Context ctx) {
  size_t rsize = rounded_size(size);
  std::lock_guard<std::mutex> lock(impl_->mu);
  Pool& pool = impl_->pools[ctx];
  void* ptr = pool.take(rsize);
  if (ptr) {
    ++pool.stats.pool_hits;
  } else {
    auto try_alloc = [&]() -> void* {
      if (ctx.dev_type != DeviceType::GPU) return system_alloc(rsize, ctx);
      try {
        return system_alloc(rsize, ctx);
      } catch (const Error&) {
        if (pool.stats.bytes_pooled == 0) throw;  // no GPU, or out of memory with nothing to give back
        return nullptr;
      }
    };
    ptr = try_alloc();
    if (!ptr && pool.stats.bytes_pooled > 0) {  // give the pool back and try once more
      pool.trim(0, ctx);
      ptr = system_alloc(rsize, ctx);
    }
    BRAID_CHECK(ptr, "out of memory allocating ", size, " bytes on ", ctx, " (", pool.stats.bytes_in_use,
                " bytes in use); reduce the batch size or free arrays");
  }
  ++pool.stats.allocations;
  pool.live[ptr] = rsize;
  pool.stats.bytes_in_use += rsize;
  if (pool.stats.bytes_in_use > pool.stats.peak_bytes_in_use) pool.stats.peak_bytes_in_use = pool.stats.bytes_in_use;
  if (auto observe = g_usage_observer.load(std::memory_order_relaxed)) observe(ctx, pool.stats.bytes_in_use);
  return {ptr, size, ctx};
}

void Storage::set_usage_observer(UsageObserver observer) { g_usage_observer.store(observer); }

void Storage::free(const StorageHandle& h) {
  if (!h.ptr) return;
  std::lock_guard<std::mutex> lock(impl_->mu);
  Pool& pool = impl_->pools[h.ctx];
  auto it = pool.live.find(h.ptr);
  BRAID_CHECK(it != pool.live.end(), "Storage::free of a pointer not allocated on ", h.ctx);
  size_t rsize = it->second;
  pool.live.erase(it);
  pool.stats.bytes_in_use -= rsize;
  if (auto observe = g_usage_observer.load(std::memory_order_relaxed)) observe(h.ctx, pool.stats.bytes_in_use);
  const size_t limit = impl_->pooling ? impl_->limit(h.ctx) : 0;
  if (rsize <= limit) {  // a block larger than the whole pool would only push the others out
    pool.keep(rsize, h.ptr);
    pool.trim(limit, h.ctx);
  } else {
    system_free(h.ptr, h.ctx);
  }
}

void Storage::release_pool(Context ctx) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->pools[ctx].trim(0, ctx);
}

void Storage::set_pool_limit(Context ctx, size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->limits[ctx] = bytes;
  impl_->pools[ctx].trim(bytes, ctx);
}

StorageStats Storage::stats(Context ctx) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->pools.find(ctx);
  return it == impl_->pools.end() ? StorageStats{} : it->second.stats;
}

void Storage::reset_peak(Context ctx) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Pool& pool = impl_->pools[ctx];
  pool.stats.peak_bytes_in_use = pool.stats.bytes_in_use;
}

}  // namespace braid
