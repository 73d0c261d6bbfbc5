#pragma once
/// The KVStore types by MXNet's names, and what each is: one registry that kv::create, the
/// trainers (gluon::Trainer and mod::Module, through kv::create_for_training) and `braid train`
/// ask, rather than comparing names. A store type of your own is one register_store_type call:
///
///   kv::register_store_type({.name = "mystore", .make = [](const kv::StoreType& t) {
///     return std::make_shared<MyStore>(t.name); }});
///   auto store = kv::create("mystore");
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace braid::kv {

class KVStore;

struct StoreType {
  std::string name;
  /// Spans processes (the parameter server, allreduce over MPI): used even with one context, and
  /// each worker trains on its shard of the data.
  bool distributed = false;
  /// Applies each push when it comes rather than once every worker has pushed the round.
  bool asynchronous = false;
  /// Can run the optimizer on the stored values (update_on_kvstore); horovod cannot.
  bool runs_optimizer = true;
  /// Sums on the devices holding the values rather than on the CPU.
  bool device_aggregation = false;
  /// Makes a store of this type.
  std::function<std::shared_ptr<KVStore>(const StoreType& type)> make{};
};

/// Adds a type; throws if its name is taken or it has no `make`.
void register_store_type(StoreType type);
/// The type named `name`; throws naming the registered types.
const StoreType& store_type(const std::string& name);
/// Every registered name, in order.
std::vector<std::string> store_type_names();

}  // namespace braid::kv
