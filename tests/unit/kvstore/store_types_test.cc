// The registry of KVStore types: MXNet's names with what each is, the errors, and a type of the
// user's own made by kv::create and chosen by create_for_training like the built-in ones.
#include "braid/kvstore/store_types.h"

#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/kvstore/kvstore.h"
#include "braid/ndarray/creation.h"

namespace braid::kv {
namespace {

TEST(StoreTypes, MxnetsTypesAndWhatEachIs) {
  const auto names = store_type_names();
  for (const char* n : {"local", "device", "dist_sync", "dist_async", "dist_sync_device", "dist_async_device", "dist",
                        "dist_device_sync", "dist_device_async", "horovod"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  struct Want {
    const char* name;
    bool distributed, asynchronous, runs_optimizer, device_aggregation;
  };
  for (const Want& w :
       {Want{"local", false, false, true, false}, Want{"device", false, false, true, true},
        Want{"local_update_cpu", false, false, true, false}, Want{"local_allreduce_cpu", false, false, true, false},
        Want{"local_allreduce_device", false, false, true, true}, Want{"dist", true, false, true, false},
        Want{"dist_sync", true, false, true, false}, Want{"dist_async", true, true, true, false},
        Want{"dist_sync_device", true, false, true, true}, Want{"dist_device_async", true, true, true, true},
        Want{"horovod", true, false, false, false}}) {
    const StoreType& t = store_type(w.name);
    EXPECT_EQ(t.name, w.name);
    EXPECT_EQ(t.distributed, w.distributed) << w.name;
    EXPECT_EQ(t.asynchronous, w.asynchronous) << w.name;
    EXPECT_EQ(t.runs_optimizer, w.runs_optimizer) << w.name;
    EXPECT_EQ(t.device_aggregation, w.device_aggregation) << w.name;
  }
  try {
    store_type("nccl2");
    FAIL() << "an unknown type was found";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("unknown type 'nccl2'; valid: local, device, local_update_cpu, local_allreduce_cpu, "
                                   "local_allreduce_device, dist_sync"),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW(create("nccl2"), Error);
}

// A store that counts its pushes and keeps values in a "local" store.
class CountingStore : public KVStore {
 public:
  explicit CountingStore(const std::string& name) : KVStore(name) {}
  void init(const Key& key, const NDArray& value) override { inner_->init(key, value); }
  bool is_initialized(const Key& key) const override { return inner_->is_initialized(key); }
  void push(const Key& key, const std::vector<NDArray>& values, int priority) override {
    ++pushes;
    inner_->push(key, values, priority);
  }
  void pull(const Key& key, const std::vector<NDArray>& outs, int priority) override {
    inner_->pull(key, outs, priority);
  }
  using KVStore::init;
  using KVStore::pull;
  using KVStore::push;
  int pushes = 0;

 private:
  std::shared_ptr<KVStore> inner_ = create("local");
};

TEST(StoreTypes, AUsersOwnType) {
  register_store_type({.name = "counting", .runs_optimizer = false, .make = [](const StoreType& t) {
                         return std::make_shared<CountingStore>(t.name);
                       }});
  auto store = create("counting");
  EXPECT_EQ(store->type(), "counting");
  store->init(0, nd::array<float>({1, 2}, Shape{2}));
  store->push(0, {nd::array<float>({3, 4}, Shape{2}), nd::array<float>({5, 6}, Shape{2})});
  NDArray out = nd::zeros(Shape{2});
  store->pull(0, {out});
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{8, 10}));
  EXPECT_EQ(std::dynamic_pointer_cast<CountingStore>(store)->pushes, 1);
  // Trainers ask the type: two contexts get the store, which runs no optimizer; one gets none.
  TrainingStore t = create_for_training("counting", 2, 100);
  ASSERT_TRUE(t.store);
  EXPECT_EQ(t.store->type(), "counting");
  EXPECT_FALSE(t.update_on_kvstore);
  EXPECT_FALSE(create_for_training("counting", 1, 100).store);
  EXPECT_THROW(register_store_type({.name = "counting", .make = store_type("counting").make}), Error);
  EXPECT_THROW(register_store_type({.name = "nothing"}), Error);
}

}  // namespace
}  // namespace braid::kv
