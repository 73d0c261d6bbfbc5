#pragma once
// Internal: the parameter server's KVStore types on a worker (MXNet's KVStoreDist). Worker 0
// sends each key's first value to the servers holding its slices (key_value.h), then every
// worker waits at a barrier. A push sums the worker's values here (on the CPU, or on the devices
// for the *_device types), then sends the sum's slices, 2-bit coded when compression is on;
// it completes when the servers answer, in sync mode once every worker has pushed the round.
// A pull copies the servers' slices back. Both are engine operations on the key's variable, so
// that a key's pushes and pulls keep their order while different keys overlap.
// Row_sparse values travel as rows (key_value.h): a push sends the rows it holds to the servers
// holding them, row_sparse_pull asks each server for the rows it holds of those wanted.
#include <memory>
#include <string>
#include <vector>

#include "braid/kvstore/kvstore.h"
#include "braid/kvstore/store_types.h"
#include "config.h"
#include "worker.h"

namespace braid::kv::ps {

/// The parameter server's store types (dist_sync, dist_async, dist_sync_device, dist_async_device,
/// dist = dist_sync, and MXNet's spellings dist_device_sync, dist_device_async): each makes a
/// worker's store, registered with the job of the DMLC_* environment.
std::vector<StoreType> dist_store_types();

/// A worker's store of `type` (one of the above) in the job `config` describes, rather than the
/// DMLC_* environment's: for jobs whose nodes are threads of one process.
std::shared_ptr<KVStore> make_worker_store(const std::string& type, Config config);

/// The bytes a worker's store of the above types has sent to and received from the servers
/// (Worker::traffic); throws for a store of another type.
Worker::Traffic worker_traffic(const KVStore& store);

}  // namespace braid::kv::ps
