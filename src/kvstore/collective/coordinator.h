#pragma once
// Internal: the background thread that owns MPI (Horovod's background loop). Tensors submitted
// from any thread wait in a queue; every cycle the ranks send rank 0 what they submitted
// (messages.h), rank 0 answers with what every rank has submitted (checked to agree, fused up
// to the threshold), and every rank runs those operations in that order (mpi_ops.h).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "messages.h"
#include "mpi_ops.h"
#include "response_cache.h"
#include "timeline.h"

namespace braid::collective::detail {

struct Entry {
  Request request;
  NDArray in, out;  // out: allreduce and broadcast write it in place; else made when run
  /// Called once from the background thread: the error, or nullptr and the result.
  std::function<void(std::exception_ptr, NDArray)> done;
};

struct Topology {
  int rank = 0, size = 1, local_rank = 0, local_size = 1, cross_rank = 0, cross_size = 1;
};

class Coordinator {
 public:
  static Coordinator& get();

  /// Starts the thread and waits for MPI to be initialised; throws its failure.
  void start();
  /// Stops every rank's thread (collective) and waits for this one; pending entries fail.
  void stop();
  bool running() const;
  /// Whether start() succeeded once (the topology is known).
  bool started() const;
  const Topology& topology() const { return topo_; }

  /// Rank 0's decides: allreduces are fused up to `bytes` (0: each alone).
  void set_fusion_bytes(int64_t bytes);
  /// Queues `e` for the next cycle; throws if not running or if its name is already in flight.
  void submit(Entry e);

 private:
  using Clock = std::chrono::steady_clock;
  void run();
  bool cycle();
  // The cached tensors ready on every rank, run; false if the full exchange is needed too.
  bool run_cached(RequestList& mine);
  void exchange(const RequestList& mine);
  ResponseList coordinate(const std::vector<RequestList>& lists);  // rank 0
  void check_stalls(std::vector<Response>& out);                    // rank 0
  void execute(const Response& r);
  void fail(const std::vector<std::string>& names, const std::string& why);
  void fail_everything(const std::string& why);

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::thread thread_;
  bool running_ = false, stopping_ = false, started_ = false;
  bool shutdown_ = false;  // rank 0 said every rank stops (background thread only)
  std::string start_error_;
  std::deque<Entry> queued_;
  std::map<std::string, Entry> in_flight_;  // submitted to the other ranks, by name
  Topology topo_;
  MPI_Comm comm_ = MPI_COMM_NULL;  // a duplicate of MPI_COMM_WORLD for the thread's own traffic

  // Settings (HOROVOD_*), read at start.
  double cycle_ms_ = 1;
  int64_t fusion_bytes_ = 128 << 20;
  double stall_check_s_ = 60, stall_shutdown_s_ = 0;

  // Rank 0: the requests of each name so far, and when the first came.
  struct Pending {
    std::vector<Request> requests;
    Clock::time_point first;
    Clock::time_point warned;
  };
  std::map<std::string, Pending> table_;
  Clock::time_point last_exchange_;
  std::vector<std::string> table_order_;  // names in order of first request
  Request fused_head_;                    // the first tensor of the last allreduce response

  ResponseCache cache_;
  std::map<int, Clock::time_point> cached_waiting_;  // this rank's cache hits waiting for the others
  std::set<std::string> uncacheable_;  // names to send in full until they run (after a resubmission)

  std::vector<char> fusion_;
  Timeline timeline_;
};

}  // namespace braid::collective::detail
