#pragma once
// Internal: a worker node's requests to the servers. Each request gets its answer through a
// callback, run on the receive thread; a request spread over several servers completes once all
// have answered. When the job fails, every pending request fails with the reason.
#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "node.h"

namespace braid::kv::ps {

class Worker {
 public:
  /// What the servers answered (one reply per server asked, in the order asked), or why not.
  using OnReplies = std::function<void(std::exception_ptr error, std::vector<Message>& replies)>;

  /// Registers with the job's scheduler (Node::start).
  explicit Worker(Config config);
  /// Tells the scheduler this worker is done and waits for the job's end (once; later requests
  /// fail); throws the job's failure.
  void finish();
  /// finish(), logging a failure.
  ~Worker();

  int rank() const { return node_.rank(); }
  int num_workers() const { return node_.config().num_workers; }
  int num_servers() const { return node_.config().num_servers; }
  void barrier();
  /// Stops the job: this worker failed with `why` (Node::fail); pending requests fail.
  void fail(const std::string& why);

  /// Sends requests[i] to the server of rank servers[i]; `done` runs once, when all have
  /// answered or the first failed (a server's error reply, a send that failed, the job's end).
  void request(const std::vector<int>& servers, std::vector<Message> requests, OnReplies done);
  /// request, waiting for the replies; throws the failure.
  std::vector<Message> call(const std::vector<int>& servers, std::vector<Message> requests);
  /// One message to every server, waited for.
  std::vector<Message> call_all(const Message& m);

  /// The bytes of the data messages (headers, bodies, payloads) sent to and received from the
  /// servers so far, and how many messages went on the wire to them (a batch counts once).
  struct Traffic {
    uint64_t sent = 0, received = 0, messages_sent = 0;
  };
  Traffic traffic() const { return {sent_, received_, messages_sent_}; }

 private:
  struct Exchange;
  void on_data(Message&& m);
  void fail_all(const std::string& why);

  Node node_;
  std::mutex mu_;
  std::map<uint64_t, std::shared_ptr<Exchange>> pending_;  // request id -> exchange
  uint64_t next_request_ = 1;
  std::string failure_;
  bool finished_ = false;
  std::atomic<uint64_t> sent_{0}, received_{0}, messages_sent_{0};
};

}  // namespace braid::kv::ps
