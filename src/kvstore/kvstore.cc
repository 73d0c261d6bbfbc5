// What every KVStore type shares: keys and their kinds, the list forms of init, push and pull,
// the optimizer or updater, and saving the optimizer's states; the store a trainer uses. The
// types (store_types.cc): one_machine_store.h (local, device), ps/dist_store.h (the parameter
// server's), collective/horovod_store.h.
#include "braid/kvstore/kvstore.h"

#include <algorithm>
#include <map>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/params.h"
#include "braid/kvstore/store_types.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "braid/op/param_reader.h"

namespace braid::kv {
namespace {

// What tells two arrays' storage apart: a sparse array's by its values.
engine::VarHandle storage_var(const NDArray& a) { return a.is_sparse() ? sparse::data(a).var() : a.var(); }

constexpr const char* kOptimizerEntry = "__optimizer__";  // save_optimizer_states' dump_optimizer

}  // namespace

std::string key_str(const Key& key) {
  if (const int* i = std::get_if<int>(&key)) return std::to_string(*i);
  return "'" + std::get<std::string>(key) + "'";
}

int KVStore::index_of_new_key(const Key& key) {
  const bool is_int = std::holds_alternative<int>(key);
  BRAID_CHECK(!has_keys_ || is_int == has_int_keys_, "KVStore: key ", key_str(key), " is ",
              is_int ? "an int" : "a string", " but this store holds ", has_int_keys_ ? "int" : "string",
              " keys; use one kind of key per store");
  has_keys_ = true;
  has_int_keys_ = is_int;
  return is_int ? std::get<int>(key) : string_keys_++;
}

void KVStore::init(const std::vector<Key>& keys, const std::vector<NDArray>& values) {
  BRAID_CHECK(keys.size() == values.size(), "KVStore init: ", keys.size(), " keys but ", values.size(), " values");
  for (size_t i = 0; i < keys.size(); ++i) init(keys[i], values[i]);
}

void KVStore::push(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values, int priority) {
  BRAID_CHECK(keys.size() == values.size(), "KVStore push: ", keys.size(), " keys but ", values.size(), " value lists");
  for (size_t i = 0; i < keys.size(); ++i) push(keys[i], values[i], priority);
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

void KVStore::pushpull(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values,
                       const std::vector<std::vector<NDArray>>& outs, int priority) {
  pushpull(keys, values, outs, std::vector<int>(keys.size(), priority));
}

void KVStore::pushpull(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values,
                       const std::vector<std::vector<NDArray>>& outs, const std::vector<int>& priorities) {
  BRAID_CHECK(keys.size() == values.size() && keys.size() == outs.size() && keys.size() == priorities.size(),
              "KVStore pushpull: ", keys.size(), " keys but ", values.size(), " value lists, ", outs.size(),
              " output lists and ", priorities.size(), " priorities");
  std::map<engine::VarHandle, size_t> pushed_by;  // a value's storage -> its key, or keys.size() for several
  for (size_t i = 0; i < keys.size(); ++i)
    for (const NDArray& v : values[i]) {
      auto [at, added] = pushed_by.emplace(storage_var(v), i);
      if (!added && at->second != i) at->second = keys.size();
    }
  bool overlapping = false;  // an output of one key is a value another key pushes
  for (size_t i = 0; i < keys.size() && !overlapping; ++i)
    for (const NDArray& o : outs[i]) {
      auto at = pushed_by.find(storage_var(o));
      overlapping = overlapping || (at != pushed_by.end() && at->second != i);
    }
  if (!overlapping) {
    pushpull_disjoint(keys, values, outs, priorities);
    return;
  }
  for (size_t i = 0; i < keys.size(); ++i) push(keys[i], values[i], priorities[i]);
  for (size_t i = 0; i < keys.size(); ++i) pull(keys[i], outs[i], priorities[i]);
}

void KVStore::pushpull_disjoint(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values,
                                const std::vector<std::vector<NDArray>>& outs, const std::vector<int>& priorities) {
  for (size_t i = 0; i < keys.size(); ++i) pushpull(keys[i], values[i], outs[i], priorities[i]);
}

void KVStore::row_sparse_pull(const Key& key, const std::vector<NDArray>&, const std::vector<NDArray>&, int) {
  throw Error(cat("KVStore row_sparse_pull: the '", type(), "' store does not hold row_sparse values (key ",
                  key_str(key), "); use a 'local' or 'device' store, or pull the whole value"));
}

void KVStore::broadcast(const Key& key, const NDArray& value, const std::vector<NDArray>& outs, int priority) {
  if (!is_initialized(key)) init(key, value);
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
  two_bit_threshold(params);  // a wrong setting is named before the refusal
  throw Error(cat("KVStore set_gradient_compression: kvstore type '", type_,
                  "' does not compress gradients (as in "
                  "MXNet, where only 'device' and the dist_* types do); Braid compresses on the parameter server "
                  "(dist_sync, dist_async)"));
}

float two_bit_threshold(const std::map<std::string, std::string>& params) {
  auto type = params.find("type");
  BRAID_CHECK(type != params.end(),
              "KVStore set_gradient_compression: give the type, e.g. {type: 2bit, threshold: 0.5}");
  BRAID_CHECK(type->second == "2bit" || type->second == "none", "KVStore set_gradient_compression: unknown type '",
              type->second, "'; valid: 2bit, none");
  for (const auto& [name, value] : params)
    BRAID_CHECK(name == "type" || name == "threshold", "KVStore set_gradient_compression: unknown parameter '", name,
                "'; valid: type, threshold");
  if (type->second == "none") return 0;
  auto given = params.find("threshold");
  if (given == params.end()) return 0.5f;
  const auto threshold = static_cast<float>(op::parse_float(given->second));
  BRAID_CHECK(threshold > 0, "KVStore set_gradient_compression: the threshold must be positive, got ", given->second);
  return threshold;
}

void KVStore::save_optimizer_states(const std::string& path, bool dump_optimizer) const {
  BRAID_CHECK(optimizer_, "KVStore save_optimizer_states: no optimizer is set (call set_optimizer first)");
  io::NamedArrays image = io::load_from_bytes(optimizer_states(), "optimizer states");
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
    set_optimizer(optim::Optimizer::deserialize(std::string(p, p + image.arrays[i].size())));
    image.names.erase(at);
    image.arrays.erase(image.arrays.begin() + static_cast<std::ptrdiff_t>(i));
  }
  set_optimizer_states(io::save_to_bytes(image));
}

std::string KVStore::optimizer_states() const { return optimizer_->save_states(); }

void KVStore::set_optimizer_states(const std::string& image) { optimizer_->load_states(image); }

bool update_on_kvstore_by_default() { return env_int({"MXNET_UPDATE_ON_KVSTORE"}, 1) != 0; }

TrainingStore create_for_training(const std::string& type, size_t contexts, int64_t largest) {
  if (type.empty() || type == "None") return {};
  const StoreType& kind = store_type(type);
  if (contexts <= 1 && !kind.distributed) return {};
  TrainingStore t{kind.make(kind), update_on_kvstore_by_default() && kind.runs_optimizer};
  // MXNet's rule for "local": updating big parameters on the one CPU that sums is slower.
  const bool sums_on_cpu = !kind.distributed && !kind.device_aggregation;
  if (sums_on_cpu && largest > 16 * 1024 * 1024) t.update_on_kvstore = false;
  return t;
}

void sum_in_every_context(const std::vector<NDArray>& per_context) {
  if (per_context.size() < 2) return;
  NDArray sum = per_context[0].copy();
  for (size_t c = 1; c < per_context.size(); ++c) sum += per_context[c].as_in_context(sum.ctx());
  for (const auto& a : per_context) sum.copyto(a);
}

}  // namespace braid::kv
