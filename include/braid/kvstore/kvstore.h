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
/// bytes). "dist_sync", "dist_async", "dist_sync_device", "dist_async_device" ("dist" = sync) are
/// the parameter server's (docs/distributed.md): a process started by `braid launch` as a worker
/// gets its rank and the servers from the DMLC_* environment.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/optim/optimizer.h"

namespace braid::kv {

/// MXNet takes int or string keys; one store holds one kind.
using Key = std::variant<int, std::string>;
std::string key_str(const Key& key);

/// What push does with the summed value: updater(key, summed, stored) changes `stored` in place.
using Updater = std::function<void(const Key& key, const NDArray& summed, NDArray& stored)>;

class KVStore {
 public:
  virtual ~KVStore() = default;

  /// "local", "device", "dist_sync", ...
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
  virtual void init(const Key& key, const NDArray& value) = 0;
  /// init of each key; a distributed store sends them together (one barrier for the list).
  virtual void init(const std::vector<Key>& keys, const std::vector<NDArray>& values);
  /// Whether `key` has been initialised.
  virtual bool is_initialized(const Key& key) const = 0;
  /// Sums `values` (one per device, all of the key's shape) and applies the sum.
  virtual void push(const Key& key, const std::vector<NDArray>& values, int priority = 0) = 0;
  void push(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values, int priority = 0);
  /// Copies the stored value into every output.
  virtual void pull(const Key& key, const std::vector<NDArray>& outs, int priority = 0) = 0;
  void pull(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& outs, int priority = 0);
  /// Copies rows `row_ids[i]` of the stored value into `outs[i]` as a row_sparse array (MXNet's
  /// row_sparse_pull: a worker takes the rows its batch uses). Row ids may come in any order and
  /// repeat; the output holds each once, ascending. Rows the value does not store are zeros.
  virtual void row_sparse_pull(const Key& key, const std::vector<NDArray>& outs, const std::vector<NDArray>& row_ids,
                               int priority = 0);

  /// push then pull; `outs` may be the pushed arrays themselves (a store may then work in place).
  virtual void pushpull(const Key& key, const std::vector<NDArray>& values, const std::vector<NDArray>& outs,
                        int priority = 0);
  /// pushpull of each key, as MXNet's list pushpull: every push reads its values before any pull
  /// writes, so an output may be another key's value (then the keys are pushed, then pulled).
  void pushpull(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values,
                const std::vector<std::vector<NDArray>>& outs, int priority = 0);
  /// The same with a priority per key (a Trainer's -i: the first layers' first). The parameter
  /// server's stores exchange each run of adjacent small keys as one (one message per server).
  void pushpull(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values,
                const std::vector<std::vector<NDArray>>& outs, const std::vector<int>& priorities);
  /// init (when the key is new) with `value`, then pull into `outs`.
  void broadcast(const Key& key, const NDArray& value, const std::vector<NDArray>& outs, int priority = 0);

  /// Runs `optimizer` on every push: the stored value is the weight, the sum its gradient, the
  /// key its index (a string key: the order in which it was initialised).
  virtual void set_optimizer(std::shared_ptr<optim::Optimizer> optimizer);
  std::shared_ptr<optim::Optimizer> optimizer() const { return optimizer_; }
  virtual void set_updater(Updater updater);
  /// MXNet's {"type": "2bit", "threshold": "0.5"}; validated here. One machine's stores do not
  /// compress (as MXNet's "local"); the parameter server's do.
  virtual void set_gradient_compression(const std::map<std::string, std::string>& params);
  /// The optimizer's states (and, with dump_optimizer, the optimizer itself), written
  /// atomically; needs set_optimizer.
  void save_optimizer_states(const std::string& path, bool dump_optimizer = false) const;
  void load_optimizer_states(const std::string& path);

 protected:
  explicit KVStore(std::string type) : type_(std::move(type)) {}

  /// The list pushpull of keys none of whose outputs is another key's value: here key by key.
  virtual void pushpull_disjoint(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values,
                                 const std::vector<std::vector<NDArray>>& outs, const std::vector<int>& priorities);

  /// For a new key: checks that the store holds one kind of key and returns the optimizer's
  /// index of the key (an int key: itself; a string key: the order of first init).
  int index_of_new_key(const Key& key);
  /// The optimizer states as a .params image (names of Optimizer::save_states), for saving.
  virtual std::string optimizer_states() const;
  /// Replaces the optimizer states with those of an Optimizer::save_states image.
  virtual void set_optimizer_states(const std::string& image);
  const Updater& updater() const { return updater_; }

 private:
  std::string type_;
  bool has_keys_ = false, has_int_keys_ = false;
  int string_keys_ = 0;
  std::shared_ptr<optim::Optimizer> optimizer_;
  Updater updater_;
};

/// A store of the given type (MXNet's names; "nccl" is "device"'s GPU form, not built on CPUs).
/// Throws naming the valid types. A dist_* type registers this process with the job's scheduler;
/// in a process whose DMLC_ROLE is server or scheduler it runs that role and exits the process
/// when the job ends, as MXNet does.
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

/// MXNet's gradient-compression settings ({"type": "2bit" or "none", "threshold": "0.5"}),
/// checked: the 2-bit threshold (default 0.5), or 0 for "none". Throws naming what is wrong.
float two_bit_threshold(const std::map<std::string, std::string>& params);

/// Without a store: every array of `per_context` (one per context) becomes their sum.
void sum_in_every_context(const std::vector<NDArray>& per_context);

}  // namespace braid::kv
