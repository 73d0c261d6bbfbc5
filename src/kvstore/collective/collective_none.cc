// The collectives of a build without MPI (BRAID_WITH_MPI=OFF), in place of collective.cc and the
// files under it: every call says what the build lacks. The horovod store, built on these, fails
// the same way when created.
#include "braid/base/error.h"
#include "braid/kvstore/collective.h"

namespace braid::collective {
namespace {

[[noreturn]] void no_mpi() {
  throw Error(
      "the collectives (horovod KVStore, DistributedTrainer, braid.horovod) need MPI, which this build of "
      "Braid lacks: configure with -DBRAID_WITH_MPI=ON where OpenMPI is installed");
}

}  // namespace

void init() { no_mpi(); }
void shutdown() {}
bool is_initialized() { return false; }
void set_fusion_threshold(int64_t) { no_mpi(); }
int rank() { no_mpi(); }
int size() { no_mpi(); }
int local_rank() { no_mpi(); }
int local_size() { no_mpi(); }
int cross_rank() { no_mpi(); }
int cross_size() { no_mpi(); }
bool poll(const Handle&) { no_mpi(); }
NDArray synchronize(const Handle&) { no_mpi(); }
Handle allreduce_async(const NDArray&, const NDArray&, const std::string&, ReduceOp, double, double) { no_mpi(); }
NDArray allreduce(const NDArray&, const std::string&, ReduceOp, double, double) { no_mpi(); }
Handle allgather_async(const NDArray&, const std::string&) { no_mpi(); }
NDArray allgather(const NDArray&, const std::string&) { no_mpi(); }
Handle broadcast_async(const NDArray&, const NDArray&, int, const std::string&) { no_mpi(); }
NDArray broadcast(const NDArray&, int, const std::string&) { no_mpi(); }
Handle alltoall_async(const NDArray&, const std::vector<int64_t>&, const std::string&) { no_mpi(); }
NDArray alltoall(const NDArray&, const std::vector<int64_t>&, const std::string&) { no_mpi(); }

}  // namespace braid::collective
