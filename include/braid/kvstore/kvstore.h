#pragma once
/// KVStore: MXNet's mx.kv, the store through which data-parallel training sums gradients and
/// shares weights.
///
///   auto kv = kv::create("device");
///   kv->init(3, weight);                  // the stored value of key 3
///   kv->set_optimizer(optim::create("sgd", {{"learning_rate", "0.1"}}));
///   kv->push(3, {grad_on_cpu0, grad_on_cpu1});   // summed, then the optimizer updates the value
///   kv->pull(3, {weight_on_cpu0, weight_on_cpu1}); // every copy gets the stored value
///
/// Semantics are MXNet's: pushing a list sums it; with an updater (or optimizer) the sum updates
/// the stored value, without one it replaces it; pull copies the stored value to every output.
/// Every operation is asynchronous: the sums, updates and copies are engine operations ordered by
/// the arrays they touch, pushed at the priority given.
///
/// Types: "local" sums on the CPU (cpu(0)), where it also keeps the values and runs the
/// updater; "device" sums on the devices holding the values, in a tree over them, and keeps each
/// key's value on one of them (keys spread so that each device holds a similar share of the
/// bytes). Distributed types come with the parameter server and allreduce issues.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/optim/optimizer.h"

namespace braid::kv {
namespace detail {
struct Shards;
}

/// MXNet takes int or string keys; one store holds one kind.
using Key = std::variant<int, std::string>;
std::string key_str(const Key& key);

/// What push does with the summed value: updater(key, summed, stored) changes `stored` in place.
using Updater = std::function<void(const Key& key, const NDArray& summed, NDArray& stored)>;

class KVStore {
 public:
  virtual ~KVStore() = default;

  /// "local", "device".
  const std::string& type() const { return type_; }
  /// This worker's rank and the number of workers (0 and 1 on one machine).
  virtual int rank() const { return 0; }
  virtual int num_workers() const { return 1; }
  /// Waits for every worker (nothing to wait for on one machine).
  virtual void barrier() {}
  /// Whether the store can do `capability` ("optimizer": run the optimizer where it keeps the
  /// values, MXNet's KVStore.OPTIMIZER).
  virtual bool is_capable(const std::string& capability) const { return capability == "optimizer"; }

  /// Stores a copy of `value` under `key`; a key is initialised once.
  void init(const Key& key, const NDArray& value);
  void init(const std::vector<Key>& keys, const std::vector<NDArray>& values);
  /// Sums `values` (one per device, all of the key's shape) and applies the sum.
  void push(const Key& key, const std::vector<NDArray>& values, int priority = 0);
  void push(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values, int priority = 0);
  /// Copies the stored value into every output.
  void pull(const Key& key, const std::vector<NDArray>& outs, int priority = 0);
  void pull(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& outs, int priority = 0);
  /// push then pull; `outs` may be the pushed arrays themselves.
  void pushpull(const Key& key, const std::vector<NDArray>& values, const std::vector<NDArray>& outs,
                int priority = 0);
  /// init (when the key is new) with `value`, then pull into `outs`.
  void broadcast(const Key& key, const NDArray& value, const std::vector<NDArray>& outs, int priority = 0);

  /// Runs `optimizer` on every push: the stored value is the weight, the sum its gradient, the
  /// key its index (a string key: the order in which it was initialised).
  void set_optimizer(std::shared_ptr<optim::Optimizer> optimizer);
  std::shared_ptr<optim::Optimizer> optimizer() const { return optimizer_; }
  void set_updater(Updater updater);
  /// MXNet's {"type": "2bit", "threshold": "0.5"}; validated here. One machine's stores do not
  /// compress (as MXNet's "local"); the parameter server uses it.
  virtual void set_gradient_compression(const std::map<std::string, std::string>& params);
  /// The optimizer's states (and, with dump_optimizer, the optimizer itself), written
  /// atomically; needs set_optimizer.
  void save_optimizer_states(const std::string& path, bool dump_optimizer = false) const;
  void load_optimizer_states(const std::string& path);

 protected:
  explicit KVStore(std::string type) : type_(std::move(type)) {}

  struct Entry {
    NDArray stored;
    int index = 0;        // the optimizer's index for the key
    bool placed = false;  // the type has moved `stored` where it keeps it
    NDArray summed;       // where push sums when an updater then reads the sum
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
  // Makes entry.stored hold the value again if it lives in shards.
  static void gather(Entry& entry);
  void check_kind(const Key& key);

  std::string type_;
  std::map<Key, Entry> entries_;
  int string_keys_ = 0;
  bool has_int_keys_ = false;
  std::shared_ptr<optim::Optimizer> optimizer_;
  Updater updater_;
};

/// A store of type "local" or "device" (MXNet's names; "nccl" is "device"'s GPU form, not built
/// on CPUs). Throws naming the valid types.
std::shared_ptr<KVStore> create(const std::string& type = "local");

/// The store a trainer of dense parameters uses, and whether it runs the optimizer (MXNet's
/// model._create_kvstore, shared by gluon::Trainer and mod::Module).
struct TrainingStore {
  std::shared_ptr<KVStore> store;  // null: none
  bool update_on_kvstore = false;
};
/// For parameters on `contexts` contexts, the largest of `largest` elements: no store for "" or
/// "None", nor for one context unless the type is distributed; update_on_kvstore by default
/// (update_on_kvstore_by_default), off for "local" with a parameter over 16M elements.
TrainingStore create_for_training(const std::string& type, size_t contexts, int64_t largest);
/// MXNET_UPDATE_ON_KVSTORE: on unless 0.
bool update_on_kvstore_by_default();

/// Without a store: every array of `per_context` (one per context) becomes their sum.
void sum_in_every_context(const std::vector<NDArray>& per_context);

}  // namespace braid::kv
