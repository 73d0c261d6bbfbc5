#pragma once
// Internal: the parameter server's transport over ZeroMQ, the one jobs use. Each node receives on
// one ROUTER socket bound to its address and sends to each peer through a DEALER socket
// connected to the peer's ROUTER; a thread receives and hands every well-formed message to the
// handler. Array payloads are sent without a copy.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "van.h"

namespace braid::kv::ps {

class ZmqVan final : public Van {
 public:
  ZmqVan(std::string log_prefix, int verbose);
  ~ZmqVan() override;

  int bind(const std::string& host, int port) override;
  void limit_message_size(uint64_t bytes) override;
  void start(Handler handler) override;
  void stop() override;
  void connect(int peer, const std::string& host, int port, int my_id) override;
  void send(int peer, const Message& m) override;
  void disconnect(int peer) override;

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
};

}  // namespace braid::kv::ps
