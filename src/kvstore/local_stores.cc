// The two one-machine stores. "local" sums every pushed list on cpu(0), where it keeps the
// values and runs the updater (MXNet's CommCPU). "device" sums on the devices holding the
// values, pairwise in a tree (log2(n) rounds, each a copy between two devices and an addition on
// the receiving one), and keeps each key on one of the devices of its first push, the one
// holding the fewest bytes so far (MXNet's CommDevice spreads its merge buffers the same way).
// On CPU contexts, which share memory, both read the values in place instead (cpu_reduce.h).
#include <algorithm>
#include <map>

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "one_machine_store.h"

namespace braid::kv {
namespace {

void add_into(const NDArray& a, const NDArray& b, NDArray& out) { nd::invoke("elemwise_add", {a, b}, {}, {out}); }

class LocalStore : public OneMachineStore {
 public:
  explicit LocalStore(std::string type = "local") : OneMachineStore(std::move(type)) {}

 protected:
  Context home_of_new(const NDArray&) override { return cpu(0); }

  void sum_across_devices(Entry& entry, const std::vector<NDArray>& values, NDArray& out) override {
    const Context home = entry.stored.ctx();
    auto at_home = [&](size_t i) { return on_context(entry, values[i], home, "recv" + std::to_string(i)); };
    add_into(at_home(0), at_home(1), out);
    for (size_t i = 2; i < values.size(); ++i) out += at_home(i);
  }
};

class DeviceStore : public OneMachineStore {
 public:
  explicit DeviceStore(std::string type = "device") : OneMachineStore(std::move(type)) {}

 protected:
  Context home_of_new(const NDArray& value) override { return value.ctx(); }

  // A tree: in round r (step 2^r) node i adds node i + step's partial sum, copied to node i's
  // device; node 0, on the key's device, writes the last addition into `out`.
  void sum_across_devices(Entry& entry, const std::vector<NDArray>& values, NDArray& out) override {
    const Context home = entry.stored.ctx();
    std::vector<NDArray> part = values;
    auto first = std::find_if(part.begin(), part.end(), [&](const NDArray& v) { return v.ctx() == home; });
    if (first != part.end()) std::iter_swap(part.begin(), first);
    for (size_t step = 1; step < part.size(); step *= 2)
      for (size_t i = 0; i + step < part.size(); i += 2 * step) {
        const Context ctx = part[i].ctx();
        NDArray remote = on_context(entry, part[i + step], ctx, "recv" + std::to_string(i + step));
        NDArray& dst = i == 0 && 2 * step >= part.size() ? out : buffer(entry, "node" + std::to_string(i), ctx);
        add_into(part[i], remote, dst);
        part[i] = dst;
      }
    if (part[0].ctx() != home) part[0].copyto(out);  // no value was on the key's device
  }

  void place(Entry& entry, const std::vector<NDArray>& values) override {
    if (entry.placed) return;
    Context best = values[0].ctx();
    for (const auto& v : values)
      if (bytes_[v.ctx()] < bytes_[best]) best = v.ctx();
    bytes_[best] += entry.stored.size() * static_cast<int64_t>(dtype_size(entry.stored.dtype()));
    if (entry.stored.ctx() != best) entry.stored = entry.stored.copyto(best);
    entry.placed = true;
  }

 private:
  std::map<Context, int64_t> bytes_;  // bytes of the values kept on each device
};

}  // namespace

namespace detail {

template <class Store>
std::shared_ptr<KVStore> make(const StoreType& t) {
  return std::make_shared<Store>(t.name);
}

std::vector<StoreType> one_machine_store_types() {
  // MXNet's other spellings of its one-machine stores (where they reduce and update) give the
  // same sums on one machine; the store keeps the name it was created under as its type().
  return {{.name = "local", .make = make<LocalStore>},
          {.name = "device", .device_aggregation = true, .make = make<DeviceStore>},
          {.name = "local_update_cpu", .make = make<LocalStore>},
          {.name = "local_allreduce_cpu", .make = make<LocalStore>},
          {.name = "local_allreduce_device", .device_aggregation = true, .make = make<DeviceStore>}};
}

}  // namespace detail

}  // namespace braid::kv
