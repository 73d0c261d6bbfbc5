#pragma once
// Internal: the transport of a parameter-server node (ps-lite's Van): it listens at an address,
// opens ways to its peers, sends messages and hands every well-formed message it receives to a
// handler, on a thread of its own. Two implementations:
//   - ZeroMQ (zmq_van.h), the one jobs use;
//   - in-process (inproc_van.h): every node of a job as threads of one process, messages passed
//     in memory through the same encoding and checks, for testing the nodes' logic without
//     sockets.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "config.h"
#include "frame_auth.h"
#include "message.h"
#include "rate_limit.h"

namespace braid::kv::ps {

class Van {
 public:
  using Handler = std::function<void(Message&&)>;

  virtual ~Van() = default;
  Van(const Van&) = delete;
  Van& operator=(const Van&) = delete;

  /// Listens at host:port (port 0: a free port) and returns the port.
  virtual int bind(const std::string& host, int port) = 0;
  /// Refuses, before receiving them whole, messages of more than `bytes` (call before bind): a
  /// node that never takes payloads (the scheduler) needs no room for them.
  virtual void limit_message_size(uint64_t bytes) = 0;
  /// Starts receiving: `handler` runs on the receive thread, one message at a time.
  virtual void start(Handler handler) = 0;
  /// Stops receiving and closes every way out (pending sends may be dropped).
  virtual void stop() = 0;
  /// Opens (once) the way to `peer`, a node id or any other key, listening at host:port;
  /// `my_id` names this node to it.
  virtual void connect(int peer, const std::string& host, int port, int my_id) = 0;
  /// Sends `m` to `peer` (connected before); thread-safe.
  virtual void send(int peer, const Message& m) = 0;
  /// Closes the way to `peer` (messages already queued still go out); unknown peers are ignored.
  virtual void disconnect(int peer) = 0;

  /// The job has a secret: only handshake messages are accepted until set_auth, and after it only
  /// messages that carry the job's MAC and a new sequence number.
  void require_auth();
  /// From now on every message but the handshake's is sealed with `auth`, and received ones are
  /// checked with it.
  void set_auth(std::shared_ptr<const FrameAuth> auth);

  void set_log_prefix(std::string prefix);
  /// "[prefix] text" on stderr, one write.
  void log(const std::string& text) const;
  /// Logs why something from outside was refused, at most 20 lines per 10 s (then how many more
  /// were refused), so a flood cannot fill the disk.
  void log_rejection(const std::string& text);

 protected:
  /// `log_prefix` starts this node's log lines; `verbose` as PS_VERBOSE.
  Van(std::string log_prefix, int verbose) : verbose_(verbose), prefix_(std::move(log_prefix)) {}

  /// The first frame of `m` as it goes out: numbered and, with a key, sealed. Call it in the
  /// order the messages leave for their peer, so each peer sees increasing numbers.
  std::string seal(const Message& m);
  /// Whether a received, well-formed message may go to the handler (the receive thread only);
  /// logs why not. `from`: the transport's name of the sender.
  bool admit(Message& m, const std::string& from);

  const int verbose_;

 private:
  static constexpr size_t kMaxLogLine = 2000;

  mutable std::mutex log_mu_;
  std::string prefix_;
  RateLimit rejections_{20, std::chrono::seconds(10)};

  std::atomic<uint64_t> next_sequence_{1};
  std::atomic<bool> auth_required_{false};
  mutable std::mutex auth_mu_;
  std::shared_ptr<const FrameAuth> auth_;
  ReplayGuard replays_;  // the receive thread's
};

/// The van of `transport`.
std::unique_ptr<Van> make_van(Transport transport, std::string log_prefix, int verbose);
/// The ZeroMQ van (zmq_van.cc); in a build without ZeroMQ (BRAID_WITH_ZMQ=OFF, zmq_van_none.cc)
/// it throws an error naming the option.
std::unique_ptr<Van> make_zmq_van(std::string log_prefix, int verbose);

}  // namespace braid::kv::ps
