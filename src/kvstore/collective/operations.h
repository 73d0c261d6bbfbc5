#pragma once
// Internal: what a response does to the data on this rank — the MPI calls of each collective on
// the coordinator's communicator, the fusion buffer, the scaling, and the timeline's phases.
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "messages.h"
#include "timeline.h"

namespace braid::collective::detail {

/// A tensor submitted on this rank.
struct Entry {
  Request request;
  NDArray in, out;  // out: allreduce and broadcast write it in place; else made when run
  /// Called once from the background thread: the error, or nullptr and the result.
  std::function<void(std::exception_ptr, NDArray)> done;
};

struct OpContext {
  MPI_Comm comm;
  int rank, size;
  Timeline* trace;            // null: no timeline on this rank
  std::vector<char>* fusion;  // the fusion buffer, grown as needed
};

/// One tensor in place, or several through the fusion buffer (`fused_bytes` in all).
void run_allreduce(std::vector<Entry>& entries, int64_t fused_bytes, const OpContext& c);
void run_broadcast(Entry& e, const OpContext& c);
/// `rows`: every rank's first dimension.
void run_allgather(Entry& e, const std::vector<int64_t>& rows, const OpContext& c);
/// `rows`: rows from rank i to rank j at i * size + j.
void run_alltoall(Entry& e, const std::vector<int64_t>& rows, const OpContext& c);

}  // namespace braid::collective::detail
