#pragma once
// Internal: kv::create("horovod") (MXNet's KVStore 'horovod'): a store over the MPI job's
// collectives. init broadcasts rank 0's value, push sums the pushed values here and then over
// every rank (allreduce, sum), pull copies the result out. It runs no optimizer: trainers update
// on every rank (update_on_kvstore=false), as in MXNet.
#include <memory>
#include <vector>

#include "braid/kvstore/kvstore.h"
#include "braid/kvstore/store_types.h"

namespace braid::collective::detail {

/// The store type "horovod" (not distributed by its own processes' count: by the MPI job's).
std::vector<kv::StoreType> horovod_store_types();

}  // namespace braid::collective::detail
