#pragma once
// Internal: the transport of a parameter-server node (ps-lite's Van): it listens at an address,
// opens ways to its peers, sends messages and hands every well-formed message it receives to a
// handler, on a thread of its own. Two implementations:
//   - ZeroMQ (zmq_van.h), the one jobs use;
//   - in-process (inproc_van.h): every node of a job as threads of one process, messages passed
//     in memory through the same encoding and checks, for testing the nodes' logic without
//     sockets.
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "config.h"
#include "message.h"

namespace braid::kv::ps {

class Van {
 public:
  using Handler = std::function<void(Message&&)>;

  virtual ~Van() = default;
  Van(const Van&) = delete;
  Van& operator=(const Van&) = delete;

  /// Listens at host:port (port 0: a free port) and returns the port.
  virtual int bind(const std::string& host, int port) = 0;
  /// Starts receiving: `handler` runs on the receive thread, one message at a time.
  virtual void start(Handler handler) = 0;
  /// Stops receiving and closes every way out (pending sends may be dropped).
  virtual void stop() = 0;
  /// Opens (once) the way to `peer`, a node id or any other key, listening at host:port;
  /// `my_id` names this node to it.
  virtual void connect(int peer, const std::string& host, int port, int my_id) = 0;
  /// Sends `m` to `peer` (connected before); thread-safe.
  virtual void send(int peer, const Message& m) = 0;

  void set_log_prefix(std::string prefix);
  /// "[prefix] text" on stderr, one write.
  void log(const std::string& text) const;

 protected:
  /// `log_prefix` starts this node's log lines; `verbose` as PS_VERBOSE.
  Van(std::string log_prefix, int verbose) : verbose_(verbose), prefix_(std::move(log_prefix)) {}
  const int verbose_;

 private:
  mutable std::mutex log_mu_;
  std::string prefix_;
};

/// The van of `transport`.
std::unique_ptr<Van> make_van(Transport transport, std::string log_prefix, int verbose);
/// The ZeroMQ van (zmq_van.cc); in a build without ZeroMQ (BRAID_WITH_ZMQ=OFF, zmq_van_none.cc)
/// it throws an error naming the option.
std::unique_ptr<Van> make_zmq_van(std::string log_prefix, int verbose);

}  // namespace braid::kv::ps
