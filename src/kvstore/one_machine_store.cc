// The one-machine stores' push and pull (one_machine_store.h).
#include "one_machine_store.h"

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "cpu_reduce.h"

namespace braid::kv {
namespace {

void check_same_shape(const Key& key, const NDArray& stored, const NDArray& value, const char* what) {
  BRAID_CHECK(value.shape() == stored.shape(), "KVStore ", what, ": key ", key_str(key), " holds shape ",
              stored.shape(), " but got an array of shape ", value.shape());
}

// `out` = `from`; between CPU contexts on the receiving one's worker, so that copies to several
// contexts run at once.
void transfer(const NDArray& from, const NDArray& out) {
  if (detail::on_cpus({from, out}, out.dtype()))
    detail::copy_on_destination(from, out);
  else
    from.copyto(out);
}

}  // namespace

OneMachineStore::Entry& OneMachineStore::entry(const Key& key, const char* what) {
  auto it = entries_.find(key);
  BRAID_CHECK(it != entries_.end(), "KVStore ", what, ": key ", key_str(key), " has not been initialized; call init(",
              key_str(key), ", value) first");
  return it->second;
}

void OneMachineStore::init(const Key& key, const NDArray& value) {
  BRAID_CHECK(!value.is_none(), "KVStore init: the value of key ", key_str(key), " is None");
  BRAID_CHECK(!entries_.count(key), "KVStore init: key ", key_str(key), " is already initialized");
  Entry e;
  e.index = index_of_new_key(key);
  e.stored = value.copyto(home_of_new(value));
  entries_.emplace(key, std::move(e));
}

void OneMachineStore::push(const Key& key, const std::vector<NDArray>& values, int priority) {
  Entry& e = entry(key, "push");
  BRAID_CHECK(!values.empty(), "KVStore push: no value for key ", key_str(key));
  for (const auto& v : values) {
    check_same_shape(key, e.stored, v, "push");
    BRAID_CHECK(v.dtype() == e.stored.dtype(), "KVStore push: key ", key_str(key), " holds ",
                dtype_name(e.stored.dtype()), " but got a ", dtype_name(v.dtype()), " array; convert it with astype");
  }
  nd::PriorityScope scope(priority);
  const bool sparse =
      e.stored.is_sparse() || std::any_of(values.begin(), values.end(), [](const NDArray& v) { return v.is_sparse(); });
  if (sparse) {
    push_sparse(key, e, values);
    return;
  }
  place(e, values);
  if (!updater() && !optimizer()) {  // the sum replaces the stored value: write it there
    if (values.size() > 1 && sum_into_shards(e, values)) return;
    sum(e, values, e.stored);
    e.in_shards = false;
    return;
  }
  gather(e);  // the update reads and writes the whole value
  sum(e, values, e.summed);
  if (updater())
    updater()(key, e.summed, e.stored);
  else
    optimizer()->update(e.index, e.stored, e.summed);
}

// Compressed values are summed on the key's context, where the stored value is; a row_sparse sum
// covers the union of the pushed rows, and a lazy optimizer updates only those rows.
void OneMachineStore::push_sparse(const Key& key, Entry& e, const std::vector<NDArray>& values) {
  const Context home = e.stored.ctx();
  NDArray summed = values[0].copyto(home);
  for (size_t i = 1; i < values.size(); ++i)
    summed = nd::invoke1("elemwise_add", {summed, values[i].as_in_context(home)});
  if (updater())
    updater()(key, summed, e.stored);
  else if (optimizer())
    optimizer()->update(e.index, e.stored, summed);
  else
    summed.copyto(e.stored);
}

void OneMachineStore::sum(Entry& entry, const std::vector<NDArray>& values, NDArray& out) {
  if (out.is_none()) out = nd::empty(entry.stored.shape(), entry.stored.ctx(), entry.stored.dtype());
  if (values.size() == 1)
    transfer(values[0], out);
  else if (detail::on_cpus(values, out.dtype()) && detail::on_cpus({out}, out.dtype()))
    detail::sum_into(values, out);
  else
    sum_across_devices(entry, values, out);
}

bool OneMachineStore::sum_into_shards(Entry& entry, const std::vector<NDArray>& values) {
  const DType t = entry.stored.dtype();
  if (!detail::on_cpus(values, t) || !detail::on_cpus({entry.stored}, t) || !detail::Shards::worth_it(values))
    return false;
  if (!entry.shards) entry.shards = std::make_shared<detail::Shards>();
  entry.shards->fit(values);
  detail::reduce_scatter(values, *entry.shards);
  entry.in_shards = true;
  return true;
}

void OneMachineStore::gather(Entry& entry) {
  if (!entry.in_shards) return;
  detail::all_gather(*entry.shards, entry.stored);
  entry.in_shards = false;
}

NDArray OneMachineStore::on_context(Entry& entry, const NDArray& v, Context ctx, const std::string& name) {
  if (v.ctx() == ctx) return v;
  NDArray& copy = buffer(entry, name, ctx);
  v.copyto(copy);
  return copy;
}

NDArray& OneMachineStore::buffer(Entry& entry, const std::string& name, Context ctx) {
  NDArray& b = entry.buffers[name];
  if (b.is_none() || b.ctx() != ctx) b = nd::empty(entry.stored.shape(), ctx, entry.stored.dtype());
  return b;
}

void OneMachineStore::pull(const Key& key, const std::vector<NDArray>& outs, int priority) {
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

void OneMachineStore::row_sparse_pull(const Key& key, const std::vector<NDArray>& outs,
                                      const std::vector<NDArray>& row_ids, int priority) {
  Entry& e = entry(key, "row_sparse_pull");
  BRAID_CHECK(outs.size() == row_ids.size(), "KVStore row_sparse_pull: ", outs.size(), " outputs but ", row_ids.size(),
              " row_ids arrays for key ", key_str(key), "; give one per output");
  nd::PriorityScope scope(priority);
  gather(e);
  for (size_t i = 0; i < outs.size(); ++i) {
    check_same_shape(key, e.stored, outs[i], "row_sparse_pull");
    BRAID_CHECK(outs[i].stype() == StorageType::RowSparse, "KVStore row_sparse_pull: output ", i, " of key ",
                key_str(key), " is ", storage_type_name(outs[i].stype()),
                "; it must be row_sparse (pull fills dense ones)");
    sparse::retain(e.stored, row_ids[i].as_in_context(e.stored.ctx())).copyto(outs[i]);
  }
}

}  // namespace braid::kv
