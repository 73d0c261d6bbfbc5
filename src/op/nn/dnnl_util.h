#pragma once
// Internal: the oneDNN CPU engine, a per-thread stream, a cache of primitives keyed by shapes and
// attributes, and execution of a primitive on the caller's plain (row-major) float32 buffers with
// reorders to and from the formats the primitive prefers.
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

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
    int id;                     // DNNL_ARG_SRC, ...
    dnnl::memory::desc user;    // what the caller passes
    dnnl::memory::desc inner;   // what the primitive wants
    bool output;
  };
  DnnlExec(dnnl::primitive prim, std::vector<Arg> args, dnnl::memory::desc workspace = {});

  /// Runs on `ptrs` (one per Arg, in order) and, when the primitive has one, a workspace buffer
  /// of at least workspace_size() bytes.
  void run(const std::vector<void*>& ptrs, void* workspace = nullptr) const;
  size_t workspace_size() const { return workspace_.get_size(); }

 private:
  dnnl::primitive prim_;
  std::vector<Arg> args_;
  std::vector<std::pair<bool, dnnl::reorder>> reorders_;  // (needed, user<->inner) per arg
  dnnl::memory::desc workspace_;
};

/// Primitives built once per key (shapes and attributes) and shared by every thread.
class DnnlCache {
 public:
  using Key = std::vector<int64_t>;
  static DnnlCache& get();
  /// The primitive for `key`, made by `make` the first time. Held by shared_ptr so that a
  /// cache flush (at kMaxEntries) never pulls a primitive from under a running kernel.
  std::shared_ptr<const DnnlExec> find(const Key& key, const std::function<DnnlExec()>& make);
  static constexpr size_t kMaxEntries = 1024;

 private:
  struct Hash {
    size_t operator()(const Key& k) const;
  };
  std::mutex mu_;
  std::unordered_map<Key, std::shared_ptr<const DnnlExec>, Hash> map_;
};

}  // namespace braid::op::detail
