#pragma once
// Internal: the background thread that owns MPI (Horovod's background loop). Tensors submitted
// from any thread wait in a queue; every cycle the ranks send rank 0 what they submitted
// (messages.h), rank 0 answers with what every rank has submitted (checked to agree, fused up
// to the threshold), and every rank runs those operations in that order (operations.h).
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
#include "negotiation.h"
#include "operations.h"
#include "response_cache.h"
#include "timeline.h"

namespace braid::collective::detail {

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

  Timeline timeline_;
  Negotiation negotiation_{timeline_};  // rank 0's
  Clock::time_point last_exchange_;
  Clock::time_point last_cycle_ = Clock::now();  // when this rank's last cycle started
  ResponseCache cache_;
  std::map<int, Clock::time_point> cached_waiting_;  // this rank's cache hits waiting for the others
  std::set<std::string> uncacheable_;                // names to send in full until they run (after a resubmission)

  std::vector<char> fusion_;
};

}  // namespace braid::collective::detail
