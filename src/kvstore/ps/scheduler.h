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
    std::string nonce;       // the scheduler's, which the node proves the secret with
    std::string node_nonce;  // the node's, which the scheduler proves the secret with
    Clock::time_point since;
  };
  static constexpr size_t kMaxPending = 64;
  static constexpr std::chrono::seconds kPendingTimeout{30};

  void handle(Message&& m);
  void on_register(const Message& m);
  void on_proof(const Message& m);
  /// Gives `node` (reached through the connection `ticket`) its rank and id, or refuses it.
  void admit(NodeInfo node, int rank_hint, int ticket, const std::string& node_nonce);
  /// Tells the node at host:port (through a connection opened for it and then closed) why it is
  /// refused; `node_nonce` lets a node with the secret check that the refusal is the scheduler's.
  void refuse(const std::string& host, int port, const std::string& node_nonce, const std::string& why);
  void forget_pending(int ticket);
  void expire_pending();
  /// The table node that sent `m`, or none (then the message is logged and dropped).
  const NodeInfo* sender_of(const Message& m);
  void on_barrier(const Message& m, const NodeInfo& from);
  void release_barrier(int group);
  void tell_servers_workers_left();
  void watch_heartbeats();
  void abort(const std::string& why);
  void send_to_all(Command c, const std::string& body);

  Config config_;
  std::unique_ptr<Van> van_;
  const std::string job_nonce_;  // with a secret, the frames' key comes from it (frame_auth.h)
  RateLimit refusals_{10, std::chrono::seconds(1)};
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
