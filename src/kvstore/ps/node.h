#pragma once
// Internal: a server or worker node of a parameter-server job: registration with the scheduler,
// the node table, barriers, heartbeats, and the end of the job. Data messages (init, push,
// pull, replies) go to the handler of the server or worker built on it; a batch of them
// (batch.h) goes as its parts, and what the handler sends meanwhile from the receive thread
// leaves as one batch per peer once the parts are handled.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "nodes.h"
#include "van.h"

namespace braid::kv::ps {

class Node {
 public:
  /// Listens on config.host (a free port) and starts receiving.
  explicit Node(Config config);
  ~Node();

  /// Registers with the scheduler and waits for the node table; throws if refused, aborted, or
  /// no answer comes within BRAID_PS_CONNECT_TIMEOUT seconds (default 120). `data_handler` gets
  /// the data messages (from the receive thread, once the node table is known); `on_failure`,
  /// if given, is called once with the reason when the job fails.
  void start(std::function<void(Message&&)> data_handler, std::function<void(const std::string&)> on_failure = nullptr);

  const Config& config() const { return config_; }
  int id() const { return me_.id; }
  int rank() const { return me_.rank; }
  Role role() const { return config_.role; }
  /// The servers' ids by rank.
  const std::vector<int>& servers() const { return servers_; }

  /// Sends `m` to node `peer`, as this node; throws once the job has failed.
  void send(int peer, Message& m);
  /// Sends messages[i] to node peers[i], in order per peer; small data messages to one peer go
  /// as one batch. Returns how many messages went on the wire.
  size_t send(const std::vector<int>& peers, std::vector<Message>& messages);
  /// Blocks until every node of `group` (kWorkerGroup, kServerGroup) arrives; throws on abort.
  void barrier(int group);
  /// Worker: tells the scheduler its work is done, then waits for the end of the job.
  void finish();
  /// Tells the scheduler that this node failed, which stops the whole job with `why`, and stops
  /// waiting for it here.
  void fail(const std::string& why);
  /// Blocks until the scheduler ends the job; throws with the reason if the job failed.
  void wait_for_exit();
  /// Stops receiving (no handler runs after it) and the node's threads; the destructor does too.
  void stop();
  void log(const std::string& text) const { van_->log(text); }

 private:
  using Clock = std::chrono::steady_clock;
  void handle(Message&& m);
  void deliver(Message&& m);
  // What the receive thread sends while it hands a batch's parts to the handler, by peer.
  struct Outbox {
    const Node* node;
    std::map<int, std::vector<Message>> to;
  };
  static thread_local Outbox* outbox_;
  void check_running() const;
  // Sends `messages` to `peer` in order, runs of batchable ones as batches; returns how many
  // messages went on the wire.
  size_t send_in_batches(int peer, std::vector<Message>& messages);
  void heartbeats();
  void abort(const std::string& why);
  Message control(Command c) const;

  Config config_;
  std::unique_ptr<Van> van_;
  NodeInfo me_;
  std::vector<int> servers_;
  std::set<int> data_senders_;  // the ids whose data messages this node takes, once registered
  std::function<void(Message&&)> data_handler_;
  std::function<void(const std::string&)> on_failure_;
  std::vector<Message> early_;  // data that came before the node table (and its connections)

  mutable std::mutex mu_;
  std::condition_variable changed_;
  bool registered_ = false, challenged_ = false, exited_ = false, stopping_ = false;
  std::string failure_;  // why the job failed; empty while it runs
  std::string nonce_;
  std::string unverified_refusal_;     // the last refusal that did not prove the secret
  std::map<uint64_t, bool> barriers_;  // request -> done
  uint64_t next_request_ = 1;
  Clock::time_point scheduler_seen_;
  std::thread heartbeat_thread_, watchdog_;
};

}  // namespace braid::kv::ps
