#pragma once
// Internal: rank 0's side of a cycle (Horovod's coordinator). It keeps the requests of each name
// until every rank has sent one, checks that they agree, orders the ready ones by first request,
// fuses consecutive allreduces up to the threshold, and reports (or fails) names that some ranks
// have not submitted for too long.
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "messages.h"
#include "timeline.h"

namespace braid::collective::detail {

/// Bytes of the request's tensor.
int64_t tensor_bytes(const Request& r);
/// Allreduces that one fusion buffer can carry together: one dtype and reduction.
bool same_reduction(const Request& a, const Request& b);

class Negotiation {
 public:
  explicit Negotiation(Timeline& timeline) : timeline_(timeline) {}
  /// The number of ranks, once MPI knows it.
  void set_size(int size) { size_ = size; }
  /// HOROVOD_STALL_CHECK_TIME_SECONDS, HOROVOD_STALL_SHUTDOWN_TIME_SECONDS (0: never).
  void set_stall_times(double check_s, double shutdown_s) {
    stall_check_s_ = check_s;
    stall_shutdown_s_ = shutdown_s;
  }
  /// The responses to this cycle's requests of every rank (in rank order).
  ResponseList coordinate(const std::vector<RequestList>& lists, int64_t fusion_bytes);
  /// Whether some names wait for some ranks.
  bool waiting() const { return !table_.empty(); }

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending {
    std::vector<Request> requests;
    Clock::time_point first, warned;
  };
  void check_stalls(std::vector<Response>& out);

  int size_ = 1;
  Timeline& timeline_;
  double stall_check_s_ = 60, stall_shutdown_s_ = 0;
  std::map<std::string, Pending> table_;
  std::vector<std::string> order_;  // names in order of first request
  Request fused_head_;              // the first tensor of the last allreduce response
};

}  // namespace braid::collective::detail
