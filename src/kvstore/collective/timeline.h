#pragma once
// Internal: HOROVOD_TIMELINE (or BRAID_TIMELINE): a Chrome-trace JSON file (chrome://tracing,
// Perfetto) with one row per tensor and its phases as begin/end events: NEGOTIATE from
// submission until every rank has it, then MEMCPY_IN_FUSION_BUFFER, the MPI operation
// (ALLREDUCE, ALLGATHER, BROADCAST, ALLTOALL) and MEMCPY_OUT_FUSION_BUFFER; a NEGOTIATE settled by
// the response cache ends with the note "cache hit". Written by rank 0 as
// it goes (the trace format allows a missing closing bracket), closed at shutdown.
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace braid::collective::detail {

class Timeline {
 public:
  /// Starts writing to `path` (nothing when empty); throws if it cannot be created.
  void open(const std::string& path);
  void close();
  bool enabled() const { return file_ != nullptr; }
  void begin(const std::string& tensor, const char* phase);
  /// `note`, if given, shows in the event's args ("cache hit").
  void end(const std::string& tensor, const char* phase, const char* note = nullptr);

 private:
  void event(const std::string& tensor, const char* phase, char type, const char* note = nullptr);
  std::mutex mu_;
  std::FILE* file_ = nullptr;
  std::map<std::string, int> rows_;  // tensor -> its "process" id in the trace
  std::chrono::steady_clock::time_point start_;
};

}  // namespace braid::collective::detail
