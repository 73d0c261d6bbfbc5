// KVStore's semantics, common to every type: keys, init, push (sum, then the updater or a
// replacement), pull, the optimizer and its states. Where the sum runs and where values live is
// the type's (local_stores.cc); between CPU contexts, cpu_reduce.h.
#include "braid/kvstore/kvstore.h"

#include <algorithm>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "cpu_reduce.h"

namespace braid::kv {
namespace {

constexpr const char* kOptimizerEntry = "__optimizer__";  // save_optimizer_states' dump_optimizer

void check_same_shape(const Key& key, const NDArray& stored, const NDArray& value, const char* what) {
  BRAID_CHECK(value.shape() == stored.shape(), "KVStore ", what, ": key ", key_str(key), " holds shape ", stored.shape(),
              " but got an array of shape ", value.shape());
}

// `out` = `from`; between CPU contexts on the receiving one's worker, so that copies to several
// contexts run at once.
void transfer(const NDArray& from, const NDArray& out) {
  if (detail::on_cpus({from, out}, out.dtype())) detail::copy_on_destination(from, out);
  else from.copyto(out);
}

}  // namespace

std::string key_str(const Key& key) {
  if (const int* i = std::get_if<int>(&key)) return std::to_string(*i);
  return "'" + std::get<std::string>(key) + "'";
}

void KVStore::check_kind(const Key& key) {
  const bool is_int = std::holds_alternative<int>(key);
  BRAID_CHECK(entries_.empty() || is_int == has_int_keys_, "KVStore: key ", key_str(key), " is ",
              is_int ? "an int" : "a string", " but this store holds ", has_int_keys_ ? "int" : "string",
              " keys; use one kind of key per store");
}

KVStore::Entry& KVStore::entry(const Key& key, const char* what) {
  auto it = entries_.find(key);
  BRAID_CHECK(it != entries_.end(), "KVStore ", what, ": key ", key_str(key), " has not been initialized; call init(",
              key_str(key), ", value) first");
  return it->second;
}

void KVStore::init(const Key& key, const NDArray& value) {
  BRAID_CHECK(!value.is_none(), "KVStore init: the value of key ", key_str(key), " is None");
  check_kind(key);
  BRAID_CHECK(!entries_.count(key), "KVStore init: key ", key_str(key), " is already initialized");
  Entry e;
  e.stored = value.copyto(home_of_new(value));
  if (std::holds_alternative<int>(key)) {
    e.index = std::get<int>(key);
    has_int_keys_ = true;
  } else {
    e.index = string_keys_++;
  }
  entries_.emplace(key, std::move(e));
}

void KVStore::init(const std::vector<Key>& keys, const std::vector<NDArray>& values) {
  BRAID_CHECK(keys.size() == values.size(), "KVStore init: ", keys.size(), " keys but ", values.size(), " values");
  for (size_t i = 0; i < keys.size(); ++i) init(keys[i], values[i]);
}

void KVStore::push(const Key& key, const std::vector<NDArray>& values, int priority) {
  Entry& e = entry(key, "push");
  BRAID_CHECK(!values.empty(), "KVStore push: no value for key ", key_str(key));
  for (const auto& v : values) {
    check_same_shape(key, e.stored, v, "push");
    BRAID_CHECK(v.dtype() == e.stored.dtype(), "KVStore push: key ", key_str(key), " holds ",
                dtype_name(e.stored.dtype()), " but got a ", dtype_name(v.dtype()), " array; convert it with astype");
  }
  nd::PriorityScope scope(priority);
  place(e, values);
  if (!updater_ && !optimizer_) {  // the sum replaces the stored value: write it there
    if (values.size() > 1 && sum_into_shards(e, values)) return;
    sum(e, values, e.stored);
    e.in_shards = false;
    return;
  }
  gather(e);  // the update reads and writes the whole value
  sum(e, values, e.summed);
  if (updater_) updater_(key, e.summed, e.stored);
  else optimizer_->update(e.index, e.stored, e.summed);
}

void KVStore::sum(Entry& entry, const std::vector<NDArray>& values, NDArray& out) {
  if (out.is_none()) out = nd::empty(entry.stored.shape(), entry.stored.ctx(), entry.stored.dtype());
  if (values.size() == 1) transfer(values[0], out);
  else if (detail::on_cpus(values, out.dtype()) && detail::on_cpus({out}, out.dtype())) detail::sum_into(values, out);
  else sum_across_devices(entry, values, out);
}

bool KVStore::sum_into_shards(Entry& entry, const std::vector<NDArray>& values) {
  const DType t = entry.stored.dtype();
  if (!detail::on_cpus(values, t) || !detail::on_cpus({entry.stored}, t) || !detail::Shards::worth_it(values))
    return false;
  if (!entry.shards) entry.shards = std::make_shared<detail::Shards>();
  entry.shards->fit(values);
  detail::reduce_scatter(values, *entry.shards);
  entry.in_shards = true;
  return true;
}

void KVStore::gather(Entry& entry) {
  if (!entry.in_shards) return;
  detail::all_gather(*entry.shards, entry.stored);
  entry.in_shards = false;
}

NDArray KVStore::on_context(Entry& entry, const NDArray& v, Context ctx, const std::string& name) {
  if (v.ctx() == ctx) return v;
  NDArray& copy = buffer(entry, name, ctx);
  v.copyto(copy);
  return copy;
}

NDArray& KVStore::buffer(Entry& entry, const std::string& name, Context ctx) {
  NDArray& b = entry.buffers[name];
  if (b.is_none() || b.ctx() != ctx) b = nd::empty(entry.stored.shape(), ctx, entry.stored.dtype());
  return b;
}

void KVStore::push(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values, int priority) {
  BRAID_CHECK(keys.size() == values.size(), "KVStore push: ", keys.size(), " keys but ", values.size(), " value lists");
  for (size_t i = 0; i < keys.size(); ++i) push(keys[i], values[i], priority);
}

void KVStore::pull(const Key& key, const std::vector<NDArray>& outs, int priority) {
  Entry& e = entry(key, "pull");
  nd::PriorityScope scope(priority);
  for (const auto& out : outs) check_same_shape(key, e.stored, out, "pull");
  for (const auto& out : outs) {
    if (e.in_shards && detail::on_cpus({out}, e.stored.dtype())) {
      detail::all_gather(*e.shards, out);
    } else {
      gather(e);
      transfer(e.stored, out);
    }
  }
}

void KVStore::pull(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& outs, int priority) {
  BRAID_CHECK(keys.size() == outs.size(), "KVStore pull: ", keys.size(), " keys but ", outs.size(), " output lists");
  for (size_t i = 0; i < keys.size(); ++i) pull(keys[i], outs[i], priority);
}

void KVStore::pushpull(const Key& key, const std::vector<NDArray>& values, const std::vector<NDArray>& outs,
                       int priority) {
  push(key, values, priority);
  pull(key, outs, priority);
}

void KVStore::broadcast(const Key& key, const NDArray& value, const std::vector<NDArray>& outs, int priority) {
  if (!entries_.count(key)) init(key, value);
  pull(key, outs, priority);
}

void KVStore::set_optimizer(std::shared_ptr<optim::Optimizer> optimizer) {
  BRAID_CHECK(optimizer, "KVStore set_optimizer: the optimizer is null");
  optimizer_ = std::move(optimizer);
  updater_ = nullptr;
}

void KVStore::set_updater(Updater updater) {
  updater_ = std::move(updater);
  optimizer_.reset();
}

void KVStore::set_gradient_compression(const std::map<std::string, std::string>& params) {
  auto type = params.find("type");
  BRAID_CHECK(type != params.end(), "KVStore set_gradient_compression: give the type, e.g. {type: 2bit, threshold: 0.5}");
  BRAID_CHECK(type->second == "2bit" || type->second == "none", "KVStore set_gradient_compression: unknown type '",
              type->second, "'; valid: 2bit, none");
  throw Error(cat("KVStore set_gradient_compression: kvstore type '", type_, "' does not compress gradients (as in "
                  "MXNet, where only 'device' and the dist_* types do); Braid compresses on the parameter server "
                  "(dist_sync, dist_async)"));
}

void KVStore::save_optimizer_states(const std::string& path, bool dump_optimizer) const {
  BRAID_CHECK(optimizer_, "KVStore save_optimizer_states: no optimizer is set (call set_optimizer first)");
  io::NamedArrays image = io::load_from_bytes(optimizer_->save_states(), "optimizer states");
  if (dump_optimizer) {
    const std::string json = optimizer_->serialize();
    NDArray bytes = nd::empty(Shape{static_cast<int64_t>(json.size())}, cpu(), DType::UInt8);
    std::copy(json.begin(), json.end(), bytes.data<uint8_t>());
    image.names.push_back(kOptimizerEntry);
    image.arrays.push_back(bytes);
  }
  io::write_file_atomically(path, io::save_to_bytes(image));
}

void KVStore::load_optimizer_states(const std::string& path) {
  BRAID_CHECK(optimizer_, "KVStore load_optimizer_states: no optimizer is set (call set_optimizer first)");
  io::NamedArrays image = io::load(path);
  auto at = std::find(image.names.begin(), image.names.end(), kOptimizerEntry);
  if (at != image.names.end()) {
    const auto i = static_cast<size_t>(at - image.names.begin());
    image.arrays[i].wait_to_read();
    const auto* p = image.arrays[i].data<uint8_t>();
    std::shared_ptr<optim::Optimizer> dumped =
        optim::Optimizer::deserialize(std::string(p, p + image.arrays[i].size()));
    optimizer_ = dumped;
    image.names.erase(at);
    image.arrays.erase(image.arrays.begin() + static_cast<std::ptrdiff_t>(i));
  }
  optimizer_->load_states(io::save_to_bytes(image));
}

bool update_on_kvstore_by_default() { return env_int({"MXNET_UPDATE_ON_KVSTORE"}, 1) != 0; }

TrainingStore create_for_training(const std::string& type, size_t contexts, int64_t largest) {
  if (type.empty() || type == "None") return {};
  if (contexts <= 1 && type.find("dist") == std::string::npos) return {};
  TrainingStore t{create(type), update_on_kvstore_by_default()};
  if (type == "local" && largest > 16 * 1024 * 1024) t.update_on_kvstore = false;
  return t;
}

void sum_in_every_context(const std::vector<NDArray>& per_context) {
  if (per_context.size() < 2) return;
  NDArray sum = per_context[0].copy();
  for (size_t c = 1; c < per_context.size(); ++c) sum += per_context[c].as_in_context(sum.ctx());
  for (const auto& a : per_context) sum.copyto(a);
}

}  // namespace braid::kv
