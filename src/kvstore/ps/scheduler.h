#pragma once
// Internal: the scheduler of a parameter-server job (ps-lite's scheduler node). It registers the
// servers and workers (checking the job's secret), assigns their ranks, tells every node where
// the others listen, runs barriers, watches heartbeats, and ends the job: when every worker has
// finished, or at once, with an error naming the node, when one dies or stops answering.
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "config.h"
#include "nodes.h"
#include "van.h"

namespace braid::kv::ps {

class Scheduler {
 public:
  explicit Scheduler(Config config);
  /// Runs the job to its end: 0 when every worker finished, 1 when it failed (logged).
  int run();

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending {  // a node between its registration and its proof
    NodeInfo node;
    int rank_hint = -1;
    std::string nonce;
  };

  void handle(Message&& m);
  void on_register(const Message& m);
  void on_proof(const Message& m);
  void admit(NodeInfo node, int rank_hint, int ticket);
  void refuse(int ticket, const std::string& why);
  void on_barrier(const Message& m);
  void release_barrier(int group);
  void tell_servers_workers_left();
  void watch_heartbeats();
  void abort(const std::string& why);
  void send_to_all(Command c, const std::string& body);

  Config config_;
  std::unique_ptr<Van> van_;
  std::mutex mu_;
  std::condition_variable changed_;
  int next_ticket_ = -100;  // connection keys of nodes not yet admitted
  std::map<int, Pending> pending_;
  std::vector<NodeInfo> nodes_;  // admitted
  bool table_sent_ = false;
  std::map<int, Clock::time_point> last_seen_;
  std::map<int, std::set<int>> barrier_arrived_;  // by group: node ids
  std::map<int, uint64_t> barrier_request_;       // the request id of each waiting node
  std::set<int> finished_;
  bool ended_ = false;
  int status_ = 0;
};

/// Barrier groups (ps-lite's): the flags of a barrier message.
inline constexpr int kWorkerGroup = 4;
inline constexpr int kServerGroup = 2;

}  // namespace braid::kv::ps
