#include "horovod_store.h"

#include <algorithm>
#include <map>

#include "braid/base/error.h"
#include "braid/kvstore/collective.h"

namespace braid::collective::detail {
namespace {

class HorovodStore : public kv::KVStore {
 public:
  HorovodStore() : KVStore("horovod") { collective::init(); }

  int rank() const override { return collective::rank(); }
  int num_workers() const override { return collective::size(); }
  void barrier() override { collective::allreduce(nd_one(), "kvstore.barrier", ReduceOp::Sum); }
  bool is_capable(const std::string&) const override { return false; }

  using kv::KVStore::init;
  void init(const kv::Key& key, const NDArray& value) override {
    BRAID_CHECK(!value.is_none(), "KVStore init: the value of key ", kv::key_str(key), " is None");
    BRAID_CHECK(!values_.count(key), "KVStore init: key ", kv::key_str(key), " is already initialized");
    index_of_new_key(key);
    NDArray stored = value.copyto(cpu());
    synchronize(broadcast_async(stored, stored, 0, "kvstore.init." + kv::key_str(key)));  // rank 0's value
    values_.emplace(key, stored);
  }
  bool is_initialized(const kv::Key& key) const override { return values_.count(key) > 0; }

  void push(const kv::Key& key, const std::vector<NDArray>& values, int priority) override {
    NDArray& stored = entry(key, "push");
    BRAID_CHECK(!values.empty(), "KVStore push: no values for key ", kv::key_str(key));
    NDArray local = values[0].as_in_context(cpu());
    if (values.size() > 1) {
      local = local.copy();
      for (size_t i = 1; i < values.size(); ++i) local += values[i].as_in_context(cpu());
    }
    BRAID_CHECK(local.shape() == stored.shape() && local.dtype() == stored.dtype(), "KVStore push: key ",
                kv::key_str(key), " holds ", dtype_name(stored.dtype()), " ", stored.shape().str(), " but got ",
                dtype_name(local.dtype()), " ", local.shape().str());
    allreduce_async(local, stored, "kvstore." + kv::key_str(key), ReduceOp::Sum);
  }

  // Into the pushed arrays themselves (a trainer's gradients): reduced in place in the first,
  // without going through the stored copy.
  void pushpull(const kv::Key& key, const std::vector<NDArray>& values, const std::vector<NDArray>& outs,
                int priority) override {
    const bool in_place =
        values.size() == outs.size() && std::equal(values.begin(), values.end(), outs.begin(),
                                                   [](const NDArray& a, const NDArray& b) { return a.same_as(b); });
    if (!in_place || !values[0].ctx().is_cpu_family()) {
      KVStore::pushpull(key, values, outs, priority);
      return;
    }
    NDArray& stored = entry(key, "pushpull");
    BRAID_CHECK(values[0].shape() == stored.shape() && values[0].dtype() == stored.dtype(), "KVStore pushpull: key ",
                kv::key_str(key), " holds ", dtype_name(stored.dtype()), " ", stored.shape().str(), " but got ",
                dtype_name(values[0].dtype()), " ", values[0].shape().str());
    kv::sum_in_every_context(values);
    allreduce_async(values[0], values[0], "kvstore." + kv::key_str(key), ReduceOp::Sum);
    for (size_t i = 1; i < values.size(); ++i) values[0].copyto(values[i]);
    values[0].copyto(stored);  // what a later pull returns (off the gradients' path)
  }

  void pull(const kv::Key& key, const std::vector<NDArray>& outs, int priority) override {
    NDArray& stored = entry(key, "pull");
    for (const NDArray& out : outs) stored.copyto(out);
  }

  void set_optimizer(std::shared_ptr<optim::Optimizer>) override {
    throw Error(
        "KVStore horovod: it runs no optimizer (MXNet's KVStore.OPTIMIZER is not among its capabilities); "
        "update on every rank: update_on_kvstore=false, or gluon::DistributedTrainer");
  }

 private:
  static NDArray nd_one() {
    NDArray one(Shape{1});
    one.fill(1);
    return one;
  }
  NDArray& entry(const kv::Key& key, const char* what) {
    auto it = values_.find(key);
    BRAID_CHECK(it != values_.end(), "KVStore ", what, ": key ", kv::key_str(key), " has not been initialized");
    return it->second;
  }
  std::map<kv::Key, NDArray> values_;
};

}  // namespace

std::vector<kv::StoreType> horovod_store_types() {
  // Distributed over the MPI job; trainers update on every rank.
  auto make = [](const kv::StoreType&) -> std::shared_ptr<kv::KVStore> { return std::make_shared<HorovodStore>(); };
  return {{.name = "horovod", .distributed = true, .runs_optimizer = false, .make = make}};
}

}  // namespace braid::collective::detail
