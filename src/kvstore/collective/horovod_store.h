#pragma once
// Internal: kv::create("horovod") (MXNet's KVStore 'horovod'): a store over the MPI job's
// collectives. init broadcasts rank 0's value, push sums the pushed values here and then over
// every rank (allreduce, sum), pull copies the result out. It runs no optimizer: trainers update
// on every rank (update_on_kvstore=false), as in MXNet.
#include <memory>

#include "braid/kvstore/kvstore.h"

namespace braid::collective::detail {

std::shared_ptr<kv::KVStore> create_horovod_store();

}  // namespace braid::collective::detail
