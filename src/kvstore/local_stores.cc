// The two one-machine stores. "local" sums every pushed list on cpu(0), where it keeps the
// values and runs the updater (MXNet's CommCPU). "device" sums on the devices holding the
// values, pairwise in a tree (log2(n) rounds, each a copy between two devices and an addition on
// the receiving one), and keeps each key on one of the devices of its first push, the one
// holding the fewest bytes so far (MXNet's CommDevice spreads its merge buffers the same way).
#include <algorithm>
#include <map>

#include "braid/base/error.h"
#include "braid/kvstore/kvstore.h"
#include "braid/ndarray/invoke.h"

namespace braid::kv {
namespace {

class LocalStore : public KVStore {
 public:
  LocalStore() : KVStore("local") {}

 protected:
  Context home_of_new(const NDArray&) override { return cpu(0); }

  NDArray sum(Entry& entry, const std::vector<NDArray>& values) override {
    const Context home = entry.stored.ctx();
    if (values.size() == 1) return values[0].as_in_context(home);
    NDArray acc = values[0].copyto(home);
    for (size_t i = 1; i < values.size(); ++i) acc += values[i].as_in_context(home);
    return acc;
  }
};

class DeviceStore : public KVStore {
 public:
  DeviceStore() : KVStore("device") {}

 protected:
  Context home_of_new(const NDArray& value) override { return value.ctx(); }

  NDArray sum(Entry& entry, const std::vector<NDArray>& values) override {
    if (!entry.placed) place(entry, values);
    // The value on the key's device first, so that the tree's root is there.
    std::vector<NDArray> part = values;
    auto home = std::find_if(part.begin(), part.end(), [&](const NDArray& v) { return v.ctx() == entry.stored.ctx(); });
    if (home != part.end()) std::iter_swap(part.begin(), home);
    for (size_t step = 1; step < part.size(); step *= 2)
      for (size_t i = 0; i + step < part.size(); i += 2 * step)
        part[i] = nd::invoke1("elemwise_add", {part[i], part[i + step].as_in_context(part[i].ctx())});
    return part[0].as_in_context(entry.stored.ctx());
  }

 private:
  void place(Entry& entry, const std::vector<NDArray>& values) {
    Context best = values[0].ctx();
    for (const auto& v : values)
      if (bytes_[v.ctx()] < bytes_[best]) best = v.ctx();
    bytes_[best] += entry.stored.size() * static_cast<int64_t>(dtype_size(entry.stored.dtype()));
    if (entry.stored.ctx() != best) entry.stored = entry.stored.copyto(best);
    entry.placed = true;
  }

  std::map<Context, int64_t> bytes_;  // bytes of the values kept on each device
};

}  // namespace

std::shared_ptr<KVStore> create(const std::string& type) {
  if (type == "local") return std::make_shared<LocalStore>();
  if (type == "device") return std::make_shared<DeviceStore>();
  const bool later = type.rfind("dist", 0) == 0 || type == "horovod";
  throw Error(cat("kvstore: unknown type '", type, "'; valid: local, device",
                  later ? " (the distributed types come with the parameter server and allreduce work)" : ""));
}

}  // namespace braid::kv
