#include "dist_store.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <utility>

#include "braid/base/error.h"
#include "braid/engine/engine.h"
#include "braid/kvstore/ps.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "braid/op/param_reader.h"
#include "braid/profiler/profiler.h"
#include "key_exchange.h"
#include "key_value.h"
#include "ndarray/sparse_host.h"
#include "rows.h"
#include "two_bit.h"
#include "worker.h"
#include "worker_states.h"

namespace braid::kv::ps {
namespace {

// A fused exchange (pushpull_disjoint): at most this many keys and bytes (of keys of at most
// kMaxBatchedPayload bytes each, fusable_bytes).
constexpr size_t kMaxFusedKeys = 256;
constexpr size_t kMaxFusedBytes = size_t{1} << 20;

class DistStore;
std::mutex live_stores_mu;
// The stores of this process (finish_workers).
std::set<DistStore*>& live_stores() {
  static std::set<DistStore*> stores;
  return stores;
}

class DistStore : public KVStore {
 public:
  DistStore(const StoreType& type, Config config)
      : KVStore(type.name),
        worker_(std::move(config)),
        local_(create(type.device_aggregation ? "device" : "local")),
        params_sent_(static_cast<size_t>(worker_.num_servers())) {
    worker_.call_all(server_command(ServerCommand::kSyncMode, type.asynchronous ? "async" : "sync"));
    std::lock_guard<std::mutex> lock(live_stores_mu);
    live_stores().insert(this);
  }

  ~DistStore() override {
    {
      std::lock_guard<std::mutex> lock(live_stores_mu);
      live_stores().erase(this);
    }
    // Destroyed by an exception: the other workers would wait for this one forever.
    if (std::uncaught_exceptions() > 0) worker_.fail("it stopped with an error (see its output)");
    for (auto& [key, ks] : keys_) {
      try {
        engine::Engine::get().wait_for_var(ks.var);
      } catch (const std::exception&) {
        // the failure was raised to whoever waited on the key's arrays
      }
      engine::Engine::get().delete_var([] {}, cpu(), ks.var);
    }
  }

  int rank() const override { return worker_.rank(); }
  int num_workers() const override { return worker_.num_workers(); }
  void barrier() override { worker_.barrier(); }
  bool is_capable(const std::string& capability) const override { return capability == "optimizer"; }

  using KVStore::init;
  using KVStore::pushpull;
  void init(const Key& key, const NDArray& value) override { init(std::vector<Key>{key}, {value}); }

  // Worker 0 sends every value of the list, then all workers meet at one barrier, as MXNet's
  // KVStoreDist does: one round trip for a model's parameters, not one per key.
  void init(const std::vector<Key>& keys, const std::vector<NDArray>& values) override {
    BRAID_CHECK(keys.size() == values.size(), "KVStore init: ", keys.size(), " keys but ", values.size(), " values");
    std::vector<std::pair<Key, KeyState>> added;
    std::set<Key> listed;
    for (size_t i = 0; i < keys.size(); ++i) {
      BRAID_CHECK(listed.insert(keys[i]).second, "KVStore init: key ", key_str(keys[i]), " appears twice in the list");
      BRAID_CHECK(!keys_.count(keys[i]), "KVStore init: key ", key_str(keys[i]), " is already initialized");
      added.emplace_back(keys[i], new_key_state(key_str(keys[i]), values[i]));
    }
    for (auto& [key, ks] : added) {  // once the whole list is valid
      ks.index = index_of_new_key(key);
      lay_out(ks, worker_.num_servers(), bound_);
    }
    if (rank() == 0) {
      std::vector<int> servers;
      std::vector<Message> parts;
      for (size_t i = 0; i < added.size(); ++i) {
        const KeyState& ks = added[i].second;
        NDArray flat = sparse::cast_storage(values[i], StorageType::Default).as_in_context(cpu());
        flat.wait_to_read();
        for (const Slice& s : ks.slices) {
          servers.push_back(s.server);
          parts.push_back(data_message(Command::kInit, ks, s));
          parts.back().payload = payload_of(flat, ks, s);
        }
      }
      worker_.call(servers, std::move(parts));
    }
    for (auto& [key, ks] : added) {
      ks.var = engine::Engine::get().new_var();
      index_to_key_[ks.index] = key;
      keys_.emplace(key, std::move(ks));
    }
    worker_.barrier();  // every worker pulls the values worker 0 sent
  }

  bool is_initialized(const Key& key) const override { return keys_.count(key) > 0; }

  void push(const Key& key, const std::vector<NDArray>& values, int priority) override {
    KeyState& ks = state(key, "push");
    check_key_arrays(ks, key, values, "push");
    if (std::all_of(values.begin(), values.end(),
                    [](const NDArray& v) { return v.stype() == StorageType::RowSparse; })) {
      push_rows(ks, values, priority);
      return;
    }
    push_dense(ks, sparse::densify(values), NDArray(), priority);
  }

  // One request per key: the servers answer the push with the value after the round, as a pull
  // would get it (a Trainer that updates on the servers: one round trip instead of two).
  void pushpull(const Key& key, const std::vector<NDArray>& values, const std::vector<NDArray>& outs,
                int priority) override {
    KeyState& ks = state(key, "pushpull");
    check_key_arrays(ks, key, values, "pushpull");
    check_key_arrays(ks, key, outs, "pushpull");
    auto sparse_array = [](const NDArray& a) { return a.is_sparse(); };
    if (std::any_of(values.begin(), values.end(), sparse_array) ||
        std::any_of(outs.begin(), outs.end(), sparse_array)) {
      KVStore::pushpull(key, values, outs, priority);  // rows travel as rows: a push, then a pull
      return;
    }
    NDArray target = outs[0].ctx().is_cpu_family() ? outs[0] : merged(ks);
    push_dense(ks, values, target, priority);
    for (const NDArray& out : outs)
      if (!out.same_as(target)) target.copyto(out);
  }

  // Sends the sum of dense `values`; with a `target`, the servers' value after the round lands
  // there (pushpull).
  void push_dense(KeyState& ks, const std::vector<NDArray>& values, const NDArray& target, int priority) {
    NDArray sum = local_sum(ks, values, priority);
    std::shared_ptr<const std::string> params = optimizer_params();
    const float threshold = threshold_for(ks);
    KeyState* k = &ks;  // std::map keeps it in place
    std::vector<engine::VarHandle> writes{ks.var};
    if (!target.is_none()) writes.push_back(target.var());
    const engine::VarHandle reads[] = {sum.var()};
    engine::Engine::get().push_async(
        [this, k, sum, target, params, threshold](engine::Done done) {
          const int64_t start = profiler::now_us();
          std::vector<Message> parts = push_parts(*k, sum, !target.is_none(), params, threshold);
          send_push(target.is_none() ? "push" : "pushpull", *k, start, std::move(parts), target, done);
        },
        cpu(), reads, writes, priority, target.is_none() ? "kvstore push" : "kvstore pushpull");
  }

  // The 2-bit threshold of the key's pushes (0: uncompressed), its residual made on first use.
  float threshold_for(KeyState& ks) {
    const float threshold = ks.dtype == DType::Float32 ? threshold_ : 0;
    if (threshold > 0 && ks.residual.empty()) ks.residual.assign(static_cast<size_t>(ks.shape.size()), 0.f);
    return threshold;
  }

  // Runs of adjacent small keys (fused_bytes) are exchanged as one: one engine operation waiting
  // for all of their values, one batch of messages per server (batch.h); other keys one by one.
  void pushpull_disjoint(const std::vector<Key>& keys, const std::vector<std::vector<NDArray>>& values,
                         const std::vector<std::vector<NDArray>>& outs, const std::vector<int>& priorities) override {
    std::vector<size_t> run;
    std::set<engine::VarHandle> run_outs;
    size_t run_bytes = 0;
    auto flush = [&] {
      if (run.size() == 1) pushpull(keys[run[0]], values[run[0]], outs[run[0]], priorities[run[0]]);
      if (run.size() > 1) pushpull_fused(run, keys, values, outs, priorities);
      run.clear();
      run_outs.clear();
      run_bytes = 0;
    };
    for (size_t i = 0; i < keys.size(); ++i) {
      auto it = keys_.find(keys[i]);
      const size_t bytes = it == keys_.end() ? 0 : fusable_bytes(it->second, values[i], outs[i]);
      if (bytes == 0) {
        flush();
        pushpull(keys[i], values[i], outs[i], priorities[i]);
        continue;
      }
      if (run_bytes + bytes > kMaxFusedBytes || run.size() == kMaxFusedKeys || run_outs.count(outs[i][0].var()))
        flush();
      run.push_back(i);
      run_outs.insert(outs[i][0].var());
      run_bytes += bytes;
    }
    flush();
  }

  void pushpull_fused(const std::vector<size_t>& run, const std::vector<Key>& keys,
                      const std::vector<std::vector<NDArray>>& values, const std::vector<std::vector<NDArray>>& outs,
                      const std::vector<int>& priorities) {
    std::vector<KeyState*> ks;
    std::vector<NDArray> sums, targets;
    std::vector<float> thresholds;
    std::set<engine::VarHandle> reads;
    std::vector<engine::VarHandle> writes;
    int priority = priorities[run[0]];
    for (size_t i : run) {
      KeyState& k = state(keys[i], "pushpull");
      check_key_arrays(k, keys[i], values[i], "pushpull");
      check_key_arrays(k, keys[i], outs[i], "pushpull");
      ks.push_back(&k);
      sums.push_back(local_sum(k, values[i], priorities[i]));
      targets.push_back(outs[i][0]);
      thresholds.push_back(threshold_for(k));
      reads.insert(sums.back().var());
      writes.insert(writes.end(), {k.var, targets.back().var()});
      priority = std::max(priority, priorities[i]);
    }
    std::shared_ptr<const std::string> params = optimizer_params();
    engine::Engine::get().push_async(
        [this, ks, sums, targets, thresholds, params](engine::Done done) {
          const int64_t start = profiler::now_us();
          std::vector<int> servers;
          std::vector<Message> parts;
          for (size_t j = 0; j < ks.size(); ++j) {
            servers.push_back(ks[j]->slices[0].server);
            parts.push_back(std::move(push_parts(*ks[j], sums[j], true, params, thresholds[j])[0]));
          }
          std::vector<uint64_t> sent;
          for (const Message& m : parts) sent.push_back(m.payload.size);
          worker_.request(servers, std::move(parts),
                          [ks, targets, start, sent, done](std::exception_ptr error, std::vector<Message>& replies) {
                            for (size_t j = 0; j < ks.size(); ++j) {
                              std::vector<Message> one;
                              if (!error) one.push_back(std::move(replies[j]));
                              if (!error) error = copy_replies(*ks[j], one, targets[j]);
                              if (!error) record_exchange("pushpull", *ks[j], start, sent[j], one);
                            }
                            for (KeyState* k : ks) k->push_error = error;
                            done(error);
                          });
        },
        cpu(), std::vector<engine::VarHandle>(reads.begin(), reads.end()), writes, priority,
        "kvstore pushpull (fused)");
    for (size_t j = 0; j < run.size(); ++j)
      for (const NDArray& out : outs[run[j]])
        if (!out.same_as(targets[j])) targets[j].copyto(out);
  }

  // The messages of a push of `sum` (each slice's, 2-bit coded above a threshold); with
  // `reply_value`, the servers answer with the slice's value after the round.
  std::vector<Message> push_parts(KeyState& k, const NDArray& sum, bool reply_value,
                                  const std::shared_ptr<const std::string>& params, float threshold) {
    std::vector<Message> parts;
    for (const Slice& s : k.slices) {
      Message m = data_message(Command::kPush, k, s);
      if (reply_value) m.head.flags |= kFlagReplyValue;
      if (params && note_params_sent(s.server, *params)) m.body = *params;
      if (threshold > 0) {
        auto codes = std::make_shared<std::string>(static_cast<size_t>(two_bit::code_bytes(s.size())), '\0');
        two_bit::quantize(sum.data<float>() + s.begin, k.residual.data() + s.begin, s.size(), threshold,
                          reinterpret_cast<uint8_t*>(codes->data()));
        m.head.flags |= kFlag2Bit;
        m.payload = {codes->data(), codes->size(), codes};
      } else {
        m.payload = payload_of(sum, k, s);
      }
      parts.push_back(std::move(m));
    }
    return parts;
  }

  // Row_sparse values: their sum's rows go to the servers holding them (and an empty push to
  // the others, which count every worker's push in a round); never compressed.
  void push_rows(KeyState& ks, const std::vector<NDArray>& values, int priority) {
    NDArray sum = values[0].as_in_context(cpu());
    for (size_t i = 1; i < values.size(); ++i) sum = nd::invoke1("elemwise_add", {sum, values[i].as_in_context(cpu())});
    const NDArray data = sparse::data(sum), indices = sparse::indices(sum);
    std::shared_ptr<const std::string> params = optimizer_params();
    KeyState* k = &ks;
    const engine::VarHandle reads[] = {data.var(), indices.var()}, writes[] = {ks.var};
    engine::Engine::get().push_async(
        [this, k, data, indices, params](engine::Done done) {
          const int64_t start = profiler::now_us();
          const std::vector<int64_t> ids = braid::detail::host_int64(indices);
          for (size_t i = 0; i < ids.size(); ++i)
            if (ids[i] < 0 || ids[i] >= k->shape[0] || (i > 0 && ids[i] <= ids[i - 1])) {
              k->push_error = std::make_exception_ptr(
                  Error(cat("KVStore push: the row_sparse value of key ", k->index, " holds row ", ids[i], " at ", i,
                            ", which is not an ascending row of its ", k->shape[0], " (check_format finds such)")));
              done(k->push_error);
              return;
            }
          const char* rows = static_cast<const char*>(data.raw_data());
          std::vector<Message> parts;
          for (const Slice& s : k->slices) {
            const auto [lo, hi] = ids_in(*k, s, ids);
            Message m = data_message(Command::kPushRows, *k, s);
            if (params && note_params_sent(s.server, *params)) m.body = *params;
            m.payload = rows_payload(std::vector<int64_t>(ids.begin() + lo, ids.begin() + hi),
                                     rows + lo * row_bytes(*k), row_bytes(*k));
            parts.push_back(std::move(m));
          }
          send_push("push rows", *k, start, std::move(parts), NDArray(), done);
        },
        cpu(), reads, writes, priority, "kvstore push rows");
  }

  // Sends a push's parts; with a `target` (pushpull) the replies carry the value to copy there.
  void send_push(const char* name, KeyState& ks, int64_t start, std::vector<Message> parts, const NDArray& target,
                 const engine::Done& done) {
    KeyState* k = &ks;
    const uint64_t sent = payload_bytes(parts);
    worker_.request(ks.servers, std::move(parts),
                    [name, k, start, sent, target, done](std::exception_ptr error, std::vector<Message>& replies) {
                      if (!error && !target.is_none()) error = copy_replies(*k, replies, target);
                      if (!error) record_exchange(name, *k, start, sent, replies);
                      for (Message& r : replies) r.payload = {};  // freed before the exchange is seen done
                      k->push_error = error;
                      done(error);
                    });
  }

  // The optimizer's hyper-parameters as a push's body sends them; null without an optimizer.
  std::shared_ptr<const std::string> optimizer_params() const {
    if (!optimizer()) return nullptr;
    return std::make_shared<const std::string>(lines_of(optimizer()->params()));
  }

  void pull(const Key& key, const std::vector<NDArray>& outs, int priority) override {
    KeyState& ks = state(key, "pull");
    check_key_arrays(ks, key, outs, "pull");
    for (const NDArray& out : outs)
      BRAID_CHECK(!out.is_sparse(), "KVStore pull: key ", key_str(key), " into a ", storage_type_name(out.stype()),
                  " array; pull fills dense arrays, row_sparse_pull row_sparse ones");
    NDArray target = outs[0].ctx().is_cpu_family() ? outs[0] : merged(ks);
    KeyState* k = &ks;
    const engine::VarHandle writes[] = {ks.var, target.var()};
    engine::Engine::get().push_async(
        [this, k, target](engine::Done done) {
          if (k->push_error) {  // the pulled arrays carry the error rather than a stale value
            done(std::exchange(k->push_error, nullptr));
            return;
          }
          const int64_t start = profiler::now_us();
          std::vector<Message> parts;
          for (const Slice& s : k->slices) parts.push_back(data_message(Command::kPull, *k, s));
          worker_.request(k->servers, std::move(parts),
                          [k, target, start, done](std::exception_ptr error, std::vector<Message>& replies) {
                            if (!error) error = copy_replies(*k, replies, target);
                            if (!error) record_exchange("pull", *k, start, 0, replies);
                            // The received frames are freed here, before the pull is seen done:
                            // freeing hundreds of MB takes milliseconds, which would otherwise
                            // delay the next message this thread receives.
                            for (Message& r : replies) r.payload = {};
                            done(error);
                          });
        },
        cpu(), {}, writes, priority, "kvstore pull");
    for (const NDArray& out : outs)
      if (!out.same_as(target)) target.copyto(out);
  }

  // Only the rows asked for travel: each server holding some of them sends those.
  void row_sparse_pull(const Key& key, const std::vector<NDArray>& outs, const std::vector<NDArray>& row_ids,
                       int priority) override {
    KeyState& ks = state(key, "row_sparse_pull");
    check_key_arrays(ks, key, outs, "row_sparse_pull");
    BRAID_CHECK(outs.size() == row_ids.size(), "KVStore row_sparse_pull: ", outs.size(), " outputs but ",
                row_ids.size(), " row_ids arrays for key ", key_str(key), "; give one per output");
    BRAID_CHECK(ks.shape.ndim() >= 1, "KVStore row_sparse_pull: key ", key_str(key), " holds a scalar, it has no rows");
    for (size_t i = 0; i < outs.size(); ++i) {
      BRAID_CHECK(outs[i].stype() == StorageType::RowSparse, "KVStore row_sparse_pull: output ", i, " of key ",
                  key_str(key), " is ", storage_type_name(outs[i].stype()),
                  "; it must be row_sparse (pull fills dense ones)");
      std::vector<int64_t> ids = braid::detail::host_int64(row_ids[i]);
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      BRAID_CHECK(ids.empty() || (ids.front() >= 0 && ids.back() < ks.shape[0]), "KVStore row_sparse_pull: row ",
                  ids.empty() || ids.front() < 0 ? ids.front() : ids.back(), " of key ", key_str(key),
                  " is out of its ", ks.shape[0], " rows");
      const auto n = static_cast<int64_t>(ids.size());
      NDArray rows = nd::empty(rows_shape(ks, n), cpu(), ks.dtype);
      pull_rows(ks, ids, rows, priority);
      sparse::row_sparse_array(rows, braid::detail::int64_array(ids, cpu()), ks.shape).copyto(outs[i]);
    }
  }

  void pull_rows(KeyState& ks, const std::vector<int64_t>& ids, const NDArray& rows, int priority) {
    KeyState* k = &ks;
    const engine::VarHandle writes[] = {ks.var, rows.var()};
    engine::Engine::get().push_async(
        [this, k, ids, rows](engine::Done done) {
          if (k->push_error) {
            done(std::exchange(k->push_error, nullptr));
            return;
          }
          const int64_t start = profiler::now_us();
          std::vector<int> servers;
          std::vector<Message> parts;
          std::vector<size_t> firsts;  // of each request: the position of its first row in `ids`
          for (const Slice& s : k->slices) {
            const auto [lo, hi] = ids_in(*k, s, ids);
            if (lo == hi) continue;
            servers.push_back(s.server);
            firsts.push_back(lo);
            parts.push_back(data_message(Command::kPullRows, *k, s));
            parts.back().payload = rows_payload(std::vector<int64_t>(ids.begin() + lo, ids.begin() + hi), nullptr, 0);
          }
          if (parts.empty()) {
            done(nullptr);
            return;
          }
          worker_.request(
              servers, std::move(parts),
              [k, ids, rows, firsts, servers, start, done](std::exception_ptr error, std::vector<Message>& replies) {
                for (size_t i = 0; !error && i < replies.size(); ++i) {
                  const size_t end = i + 1 < firsts.size() ? firsts[i + 1] : ids.size();
                  const size_t bytes = (end - firsts[i]) * row_bytes(*k);
                  if (replies[i].payload.size != bytes) {
                    error = std::make_exception_ptr(
                        Error(cat("KVStore row_sparse_pull: server ", servers[i], " answered ", replies[i].payload.size,
                                  " bytes for key ", k->index, ", expected ", bytes)));
                    break;
                  }
                  std::memcpy(static_cast<char*>(rows.raw_data()) + firsts[i] * row_bytes(*k), replies[i].payload.data,
                              bytes);
                }
                if (!error) record_exchange("pull rows", *k, start, 0, replies);
                done(error);
              });
        },
        cpu(), {}, writes, priority, "kvstore row_sparse_pull");
  }

  void set_optimizer(std::shared_ptr<optim::Optimizer> optimizer) override {
    KVStore::set_optimizer(optimizer);
    const std::string foreign = optimizer->foreign_image();
    worker_.call_all(foreign.empty() ? server_command(ServerCommand::kOptimizer, optimizer->serialize())
                                     : server_command(ServerCommand::kForeignOptimizer, foreign));
    std::lock_guard<std::mutex> lock(params_mu_);
    std::fill(params_sent_.begin(), params_sent_.end(), lines_of(optimizer->params()));
  }

  void set_updater(Updater) override {
    throw Error(cat("KVStore ", type(), ": the servers cannot run a C++ updater function of this process; give ",
                    "them an optimizer with set_optimizer, or update on the workers (update_on_kvstore=false)"));
  }

  Worker::Traffic traffic() const { return worker_.traffic(); }
  void finish() {
    wait_for_keys();
    worker_.finish();
  }

  void set_gradient_compression(const std::map<std::string, std::string>& params) override {
    const float threshold = two_bit_threshold(params);
    if (threshold > 0) worker_.call_all(server_command(ServerCommand::kCompression, std::to_string(threshold)));
    threshold_ = threshold;
  }

 protected:
  // The servers' states (each server's part of a key, key_value.h), put back together in the
  // key's shape.
  std::string optimizer_states() const override {
    wait_for_keys();
    return join_server_states(worker_.call_all(server_command(ServerCommand::kGetStates, "")), key_of_state());
  }

  // Each server gets its parts of the states, and every update count.
  void set_optimizer_states(const std::string& bytes) override {
    wait_for_keys();
    std::vector<int> servers;
    std::vector<Message> requests;
    int server = 0;
    for (std::string& part : split_states_by_server(bytes, worker_.num_servers(), key_of_state())) {
      auto states = std::make_shared<std::string>(std::move(part));
      Message m = server_command(ServerCommand::kSetStates, "");
      m.payload = {states->data(), states->size(), states};
      servers.push_back(server++);
      requests.push_back(std::move(m));
    }
    worker_.call(servers, std::move(requests));
  }

 private:
  KeyState& state(const Key& key, const char* what) {
    auto it = keys_.find(key);
    BRAID_CHECK(it != keys_.end(), "KVStore ", what, ": key ", key_str(key), " has not been initialized (call init ",
                "first)");
    return it->second;
  }

  NDArray& merged(KeyState& ks) {
    if (ks.merged.is_none()) ks.merged = nd::empty(ks.shape, cpu(), ks.dtype);
    return ks.merged;
  }

  // The sum of a push's values, on the CPU: one CPU value itself, else summed by the local store
  // of the type ("device" for *_device: on the devices), then copied.
  NDArray local_sum(KeyState& ks, const std::vector<NDArray>& values, int priority) {
    if (values.size() == 1 && values[0].ctx().is_cpu_family()) return values[0];
    NDArray& out = merged(ks);
    if (values.size() == 1) return values[0].copyto(out);
    if (!local_->is_initialized(ks.index)) local_->init(ks.index, values[0]);
    local_->push(ks.index, values, priority);
    local_->pull(ks.index, {out}, priority);
    return out;
  }

  // Whether `params` differ from what server `server` last got (and notes they are sent now).
  bool note_params_sent(int server, const std::string& params) {
    std::lock_guard<std::mutex> lock(params_mu_);
    std::string& sent = params_sent_[static_cast<size_t>(server)];
    if (sent == params) return false;
    sent = params;
    return true;
  }

  void wait_for_keys() const {
    for (const auto& [key, ks] : keys_) engine::Engine::get().wait_for_var(ks.var);
  }

  // The key whose index starts a state's name "<index>_<state>".
  KeyOfState key_of_state() const {
    return [this](const std::string& name) -> const KeyState& {
      const size_t sep = name.find('_');
      auto key = sep == std::string::npos ? index_to_key_.end()
                                          : index_to_key_.find(static_cast<int>(op::parse_int(name.substr(0, sep))));
      BRAID_CHECK(key != index_to_key_.end(), "optimizer state '", name, "' does not belong to a key of this store");
      return keys_.at(key->second);
    };
  }

  mutable Worker worker_;
  std::shared_ptr<KVStore> local_;  // sums a push's values on this machine
  const int64_t bound_ = bigarray_bound();
  std::map<Key, KeyState> keys_;
  std::map<int, Key> index_to_key_;
  float threshold_ = 0;  // 2-bit compression; 0: off
  std::mutex params_mu_;
  std::vector<std::string> params_sent_;  // per server: the optimizer's hyper-parameters it has
};

}  // namespace

std::shared_ptr<KVStore> make_worker_store(const std::string& type, Config config) {
  return std::make_shared<DistStore>(store_type(type), std::move(config));
}

Worker::Traffic worker_traffic(const KVStore& store) {
  const auto* dist = dynamic_cast<const DistStore*>(&store);
  BRAID_CHECK(dist, "the '", store.type(), "' store is not a parameter server's");
  return dist->traffic();
}

}  // namespace braid::kv::ps

namespace braid::kv {

void finish_workers() {
  std::lock_guard<std::mutex> lock(ps::live_stores_mu);
  for (ps::DistStore* store : ps::live_stores()) store->finish();
}

}  // namespace braid::kv

namespace braid::kv::ps {

std::vector<StoreType> dist_store_types() {
  // A process whose DMLC_ROLE is server or scheduler runs that role and exits, as MXNet's do.
  auto make = [](const StoreType& t) -> std::shared_ptr<KVStore> {
    if (is_server_process()) std::exit(run_server());
    return std::make_shared<DistStore>(t, Config::from_env());
  };
  std::vector<StoreType> types;
  for (const char* name : {"dist_sync", "dist_async", "dist_sync_device", "dist_async_device", "dist",
                           "dist_device_sync", "dist_device_async"}) {
    const std::string n = name;
    types.push_back({.name = n,
                     .distributed = true,
                     .asynchronous = n.find("async") != std::string::npos,
                     .device_aggregation = n.find("device") != std::string::npos,
                     .make = make});
  }
  return types;
}

}  // namespace braid::kv::ps
