// The registry of KVStore types (include/braid/kvstore/store_types.h), filled with the built-in
// types at its first use: the one-machine stores, the parameter server's and horovod. kv::create
// lives here too: it is the registry's factory.
#include "braid/kvstore/store_types.h"

#include <map>
#include <mutex>

#include "braid/base/error.h"
#include "braid/kvstore/kvstore.h"
#include "collective/horovod_store.h"
#include "one_machine_store.h"
#include "ps/dist_store.h"

namespace braid::kv {
namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::string> order;
  std::map<std::string, StoreType> types;  // nodes stay in place: references to them stay valid

  void add(StoreType t) {
    BRAID_CHECK(!t.name.empty() && t.make, "register_store_type needs a name and a make function");
    std::lock_guard<std::mutex> lock(mu);
    BRAID_CHECK(!types.count(t.name), "kvstore type '", t.name, "' is already registered");
    order.push_back(t.name);
    std::string name = t.name;
    types.emplace(std::move(name), std::move(t));
  }
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry();  // never destroyed: stores may be made while the process exits
    for (auto types :
         {detail::one_machine_store_types(), ps::dist_store_types(), collective::detail::horovod_store_types()})
      for (StoreType& t : types) reg->add(std::move(t));
    return reg;
  }();
  return *r;
}

}  // namespace

void register_store_type(StoreType type) { registry().add(std::move(type)); }

const StoreType& store_type(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.types.find(name);
  if (it != r.types.end()) return it->second;
  std::string valid;
  for (const auto& n : r.order) valid += (valid.empty() ? "" : ", ") + n;
  throw Error(cat("kvstore: unknown type '", name, "'; valid: ", valid));
}

std::shared_ptr<KVStore> create(const std::string& type) {
  const StoreType& t = store_type(type);
  return t.make(t);
}

std::vector<std::string> store_type_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.order;
}

}  // namespace braid::kv
