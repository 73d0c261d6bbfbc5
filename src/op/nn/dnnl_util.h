#pragma once
// Internal: the oneDNN CPU engine, a per-thread stream, a cache of primitives keyed by shapes and
// attributes, execution of a primitive on the caller's plain (row-major) float32 buffers with
// reorders to and from the formats it computes in, and timing of alternative formats.
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "braid/base/error.h"

namespace braid::op::detail {

dnnl::engine& dnnl_engine();
/// One stream per thread: oneDNN streams are not meant to be shared between threads.
dnnl::stream& dnnl_stream();

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
  DnnlExec(dnnl::primitive prim, std::vector<Arg> args, dnnl::memory::desc workspace = {});

  /// Runs on `ptrs` (one per Arg, in order) and, when the primitive has one, a workspace buffer
  /// of at least workspace_size() bytes.
  void run(const std::vector<void*>& ptrs, void* workspace = nullptr) const;
  size_t workspace_size() const { return workspace_.get_size(); }
  const std::vector<Arg>& args() const { return args_; }
  /// Whether any argument is reordered (the primitive computes in another format).
  bool reorders() const;

 private:
  dnnl::primitive prim_;
  std::vector<Arg> args_;
  std::vector<std::pair<bool, dnnl::reorder>> reorders_;  // (needed, user<->inner) per arg
  dnnl::memory::desc workspace_;
};

/// Zero-filled buffers for every argument of a primitive, to time it.
class DnnlTrial {
 public:
  /// `workspace`: another trial's workspace to share (a backward reads the forward's).
  explicit DnnlTrial(const DnnlExec& e, void* workspace = nullptr);
  // Moving keeps the buffers (and the pointers to them); a copy would point at the original's.
  DnnlTrial(DnnlTrial&&) = default;
  DnnlTrial(const DnnlTrial&) = delete;
  void run() const { exec_.run(ptrs_, workspace_); }
  void* workspace() const { return workspace_; }

 private:
  const DnnlExec& exec_;
  std::vector<std::vector<float>> bufs_;
  std::vector<void*> ptrs_;
  void* workspace_;
};

/// Index of the fastest of n alternatives (the same computation in different memory formats)
/// on this machine and thread count; run(i) runs alternative i once.
size_t fastest(size_t n, const std::function<void(size_t)>& run);

/// Appends make() to `candidates`, or nothing when it cannot be built (oneDNN has no
/// implementation for that format, or it does not fit the op's buffers).
template <class V, class F>
void try_add(std::vector<V>& candidates, F&& make) {
  try {
    candidates.push_back(make());
  } catch (const dnnl::error&) {
  } catch (const Error&) {
  }
}

/// Values (primitives) built once per key of shapes and attributes and shared by every thread.
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
  std::shared_ptr<const V> find(const Key& key, const std::function<V()>& make) {
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
