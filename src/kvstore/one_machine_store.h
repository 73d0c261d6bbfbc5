#pragma once
// Internal: what the one-machine stores ("local", "device") share: the values kept in this
// process, push summing a list and applying the sum (the updater, the optimizer, or a
// replacement), pull copying out. Where the sum runs and where values live is the type's
// (local_stores.cc); between CPU contexts, cpu_reduce.h.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "braid/kvstore/kvstore.h"
#include "braid/kvstore/store_types.h"

namespace braid::kv {
namespace detail {
struct Shards;
/// The store types "local" and "device" (local_stores.cc).
std::vector<StoreType> one_machine_store_types();
}  // namespace detail

class OneMachineStore : public KVStore {
 public:
  void init(const Key& key, const NDArray& value) override;
  bool is_initialized(const Key& key) const override { return entries_.count(key) > 0; }
  void push(const Key& key, const std::vector<NDArray>& values, int priority = 0) override;
  void pull(const Key& key, const std::vector<NDArray>& outs, int priority = 0) override;
  void row_sparse_pull(const Key& key, const std::vector<NDArray>& outs, const std::vector<NDArray>& row_ids,
                       int priority = 0) override;
  using KVStore::init;
  using KVStore::pull;
  using KVStore::push;

 protected:
  explicit OneMachineStore(std::string type) : KVStore(std::move(type)) {}

  struct Entry {
    NDArray stored;
    int index = 0;                           // the optimizer's index for the key
    bool placed = false;                     // the type has moved `stored` where it keeps it
    NDArray summed;                          // where push sums when an updater then reads the sum
    std::map<std::string, NDArray> buffers;  // the type's, by name: kept so that pushes allocate nothing
    // On CPU contexts a push without updater sums into one part per context at once; the value
    // then lives in the parts until something needs it whole (gather).
    std::shared_ptr<detail::Shards> shards;
    bool in_shards = false;
  };
  /// Moves entry.stored where this store keeps it, at each push (default: it stays).
  virtual void place(Entry& entry, const std::vector<NDArray>& values) {}
  /// Writes the sum of `values` (two or more, not all in one memory) into `out`, which lives where
  /// the store keeps the key.
  virtual void sum_across_devices(Entry& entry, const std::vector<NDArray>& values, NDArray& out) = 0;
  /// entry.buffers[name] on `ctx`, with the key's shape and dtype, made on first use.
  static NDArray& buffer(Entry& entry, const std::string& name, Context ctx);
  /// `v` on `ctx`: itself, or its copy into entry.buffers[name] there.
  static NDArray on_context(Entry& entry, const NDArray& v, Context ctx, const std::string& name);
  /// Where a newly initialised value is kept.
  virtual Context home_of_new(const NDArray& value) = 0;

 private:
  Entry& entry(const Key& key, const char* what);
  // `out` (made on first use, where the key is kept, after place) = the sum of `values`.
  void sum(Entry& entry, const std::vector<NDArray>& values, NDArray& out);
  // The stored value = the sum of `values`, split into shards over their CPU contexts; false
  // (and nothing done) where that does not apply.
  bool sum_into_shards(Entry& entry, const std::vector<NDArray>& values);
  void push_sparse(const Key& key, Entry& entry, const std::vector<NDArray>& values);
  // Makes entry.stored hold the value again if it lives in shards.
  static void gather(Entry& entry);

  std::map<Key, Entry> entries_;
};

}  // namespace braid::kv
