#pragma once
/// Collective communication between the processes of an MPI job, as Horovod does it
/// (`hvd.init()`, `hvd.allreduce`, ...), for programs started by `mpirun -np N` or
/// `braid launch --launcher mpi`.
///
///   collective::init();
///   NDArray sum = collective::allreduce(grad, "grad0", collective::ReduceOp::Sum);
///   auto h = collective::allreduce_async(grad, grad, "grad1");   // averaged in place
///   ... other work ...
///   collective::synchronize(h);
///
/// Tensors are submitted by name from any thread. A background thread owns MPI: every cycle
/// (HOROVOD_CYCLE_TIME ms, default 1) the ranks agree on which named tensors every rank has
/// submitted; those are reduced together, packed into one fusion buffer up to
/// HOROVOD_FUSION_THRESHOLD bytes (default 128 MB; 0 turns fusion off). A name submitted with
/// another shape or dtype on another rank fails on every rank with an error naming the tensor
/// and the ranks. A tensor some ranks have submitted and others have not for
/// HOROVOD_STALL_CHECK_TIME_SECONDS (default 60) is reported with the ranks missing; with
/// HOROVOD_STALL_SHUTDOWN_TIME_SECONDS > 0 it then fails. HOROVOD_TIMELINE (or BRAID_TIMELINE)
/// names a Chrome-trace JSON file of each tensor's phases. See docs/collective.md.
///
/// The asynchronous forms are engine operations: they run once the input's writers are done and
/// the output's readers and writers are ordered after them, so communication overlaps whatever
/// else the engine runs (the rest of backward).
#include <memory>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::collective {

/// Starts the background thread, which initialises MPI (MPI_THREAD_MULTIPLE: the program may use
/// MPI_COMM_WORLD itself; the thread talks on a duplicate) and asks OpenMPI to yield the core
/// while waiting (OMPI_MCA_mpi_yield_when_idle=1 unless set); a second call does nothing.
/// Outside mpirun it runs as a job of one process.
void init();
/// Stops the background thread and finalises MPI, on every rank at once (a collective call
/// also made at exit); pending operations fail.
void shutdown();
bool is_initialized();
/// Changes HOROVOD_FUSION_THRESHOLD while running (bytes; 0: no fusion). Rank 0's value decides.
void set_fusion_threshold(int64_t bytes);

int rank();
int size();
/// The rank among the processes on this machine, their number, and the rank of this machine.
int local_rank();
int local_size();
int cross_rank();
int cross_size();

enum class ReduceOp { Average, Sum };

/// An operation in flight.
class Handle {
 public:
  struct State;
  explicit Handle(std::shared_ptr<State> state = nullptr) : state_(std::move(state)) {}
  const std::shared_ptr<State>& state() const { return state_; }

 private:
  std::shared_ptr<State> state_;
};
/// Whether the operation has finished (successfully or not).
bool poll(const Handle& h);
/// Waits for the operation and returns its result; throws its error.
NDArray synchronize(const Handle& h);

/// `out` = the reduction of `in` over all ranks (`out` may be `in`; both of one shape and
/// dtype: float32/64/16, int8/32/64, uint8). Average divides the sum by size(); the input is
/// multiplied by `prescale` before, the result by `postscale` after.
Handle allreduce_async(const NDArray& in, const NDArray& out, const std::string& name, ReduceOp op = ReduceOp::Average,
                       double prescale = 1, double postscale = 1);
NDArray allreduce(const NDArray& in, const std::string& name, ReduceOp op = ReduceOp::Average, double prescale = 1,
                  double postscale = 1);
/// The ranks' arrays concatenated along axis 0, in rank order; their first dimensions may differ.
Handle allgather_async(const NDArray& in, const std::string& name);
NDArray allgather(const NDArray& in, const std::string& name);
/// `out` = `root_rank`'s `in` on every rank (`out` may be `in`).
Handle broadcast_async(const NDArray& in, const NDArray& out, int root_rank, const std::string& name);
NDArray broadcast(const NDArray& in, int root_rank, const std::string& name);
/// Rows `splits[0]` of `in` to rank 0, the next `splits[1]` to rank 1, ... (empty: equal
/// parts); the result holds the rows every rank sent this one, in rank order.
Handle alltoall_async(const NDArray& in, const std::vector<int64_t>& splits, const std::string& name);
NDArray alltoall(const NDArray& in, const std::vector<int64_t>& splits, const std::string& name);

}  // namespace braid::collective
