#pragma once
// Internal: the oneDNN CPU engine, a per-thread stream, a cache of primitives keyed by shapes and
// attributes, execution of a primitive on the caller's plain (row-major) float32 buffers with
// reorders to and from the formats it computes in, and the choice among alternative formats.
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "braid/base/error.h"

namespace braid::op::detail {

dnnl::engine& dnnl_engine();
/// One stream per thread: oneDNN streams are not meant to be shared between threads.
dnnl::stream& dnnl_stream();

/// The attributes every primitive is created with: a scratchpad the caller provides. oneDNN's own
/// (library) scratchpad is shared by all primitives and only safe on the thread that created
/// the primitive, while engine workers of several devices run the same primitives concurrently.
const dnnl::primitive_attr& user_scratchpad();
/// Executes `prim` on the calling thread's stream with that thread's scratchpad (not waiting).
void execute(const dnnl::primitive& prim, std::unordered_map<int, dnnl::memory>& args);

/// A plain f32 memory descriptor.
dnnl::memory::desc plain_md(const dnnl::memory::dims& dims, dnnl::memory::format_tag tag);

/// A primitive with the memory formats it computes in. Arguments whose internal format differs
/// from the user's plain format are reordered through per-thread scratch buffers.
class DnnlExec {
 public:
  struct Arg {
    int id;                    // DNNL_ARG_SRC, ...
    dnnl::memory::desc user;   // what the caller passes
    dnnl::memory::desc inner;  // what the primitive wants
    bool output;
  };
  DnnlExec(dnnl::primitive prim, std::vector<Arg> args);

  /// Runs on `ptrs`, one per Arg, in order.
  void run(const std::vector<void*>& ptrs) const;
  const std::vector<Arg>& args() const { return args_; }

 private:
  dnnl::primitive prim_;
  std::vector<Arg> args_;
  std::vector<std::pair<bool, dnnl::reorder>> reorders_;  // (needed, user<->inner) per arg
};

/// The first of `makers` (the same computation in different memory formats, in order of
/// preference) that oneDNN implements on this machine. The choice depends only on the geometry, so
/// runs are reproducible (timing the candidates picked differently from run to run, and worse).
/// Throws naming `op` when oneDNN implements none.
template <class... Makers>
DnnlExec first_supported(const char* op, Makers&&... makers) {
  std::optional<DnnlExec> chosen;
  auto attempt = [&](auto& make) {
    if (chosen) return;
    try {
      chosen.emplace(make());
    } catch (const dnnl::error&) {  // no implementation for this format: try the next
    }
  };
  (attempt(makers), ...);
  BRAID_CHECK(chosen, "operator ", op, ": oneDNN has no implementation for this geometry");
  return std::move(*chosen);
}

/// Values (primitives) built once per key of shapes and attributes and shared by every thread
/// that runs kernels with the same number of OpenMP threads: oneDNN fixes a primitive's
/// partitioning, and the size of the team it starts, when it is created. (Without the count, a
/// primitive made while one CPU context had both cores went on starting two threads per kernel
/// once two contexts shared them: four threads on two cores.)
template <class V>
class DnnlCache {
 public:
  using Key = std::vector<int64_t>;
  static constexpr size_t kMaxEntries = 1024;

  static DnnlCache& get() {
    static auto* cache = new DnnlCache();  // never destroyed: kernels may run during exit
    return *cache;
  }
  /// The value for `key`, made by `make` the first time. Held by shared_ptr so that a flush
  /// (at kMaxEntries) never pulls a primitive from under a running kernel.
  std::shared_ptr<const V> find(Key key, const std::function<V()>& make) {
    key.push_back(omp_get_max_threads());
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) return it->second;
    }
    // Built outside the lock: creating (and timing) primitives takes milliseconds.
    auto made = std::make_shared<const V>(make());
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.size() >= kMaxEntries) map_.clear();
    return map_.emplace(key, std::move(made)).first->second;
  }

 private:
  struct Hash {
    size_t operator()(const Key& k) const {
      size_t h = 1469598103934665603ull;
      for (int64_t v : k) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
      return h;
    }
  };
  std::mutex mu_;
  std::unordered_map<Key, std::shared_ptr<const V>, Hash> map_;
};

}  // namespace braid::op::detail
