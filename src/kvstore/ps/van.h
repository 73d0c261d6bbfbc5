#pragma once
// Internal: the transport of a parameter-server node, over ZeroMQ (ps-lite's Van). Each node
// receives on one ROUTER socket bound to its address and sends to each peer through a DEALER
// socket connected to the peer's ROUTER; a thread receives and hands every well-formed message
// to the handler. Array payloads are sent without a copy.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "message.h"

namespace braid::kv::ps {

class Van {
 public:
  using Handler = std::function<void(Message&&)>;

  /// `log_prefix` starts this node's log lines; `verbose` as PS_VERBOSE.
  Van(std::string log_prefix, int verbose);
  ~Van();
  Van(const Van&) = delete;
  Van& operator=(const Van&) = delete;

  /// Binds the receiving socket to host:port (port 0: a free port) and returns the port.
  int bind(const std::string& host, int port);
  /// Starts receiving: `handler` runs on the receive thread, one message at a time.
  void start(Handler handler);
  /// Stops receiving and closes every socket (pending sends are dropped).
  void stop();

  /// Opens (once) the way to `peer`, a node id or any other key, listening at host:port;
  /// `my_id` names this node to it.
  void connect(int peer, const std::string& host, int port, int my_id);
  /// Sends `m` to `peer` (connected before); thread-safe.
  void send(int peer, const Message& m);

  void set_log_prefix(std::string prefix);
  /// "[prefix] text" on stderr, one write.
  void log(const std::string& text) const;

 private:
  struct Peer {
    zmq::socket_t socket;
    std::mutex mu;
    std::string address;
  };
  void receive_loop();
  void receive_one();

  zmq::context_t context_;
  zmq::socket_t receiver_;
  mutable std::mutex peers_mu_;
  std::map<int, std::unique_ptr<Peer>> peers_;
  Handler handler_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex log_mu_;
  std::string prefix_;
  int verbose_;
};

}  // namespace braid::kv::ps
