#pragma once
// Internal: the parameter server's in-process transport (see van.h). Addresses live in a
// process-wide table of their own (no sockets, no OS ports); a send encodes the message as
// ZeroMQ's van does, copies the payload, and the receiving van decodes and checks it on its own
// thread, so the nodes see exactly what they would over the network.
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "van.h"

namespace braid::kv::ps {

class InProcessVan final : public Van {
 public:
  InProcessVan(std::string log_prefix, int verbose);
  ~InProcessVan() override;

  int bind(const std::string& host, int port) override;
  void limit_message_size(uint64_t bytes) override;
  void start(Handler handler) override;
  void stop() override;
  void connect(int peer, const std::string& host, int port, int my_id) override;
  void send(int peer, const Message& m) override;
  void disconnect(int peer) override;

  /// A message as it travels: the header-and-body frame and the payload's bytes.
  struct Frames {
    std::string first, payload;
  };
  /// Queues `frames` for the receive thread (called by the sender).
  void deliver(Frames frames);

 private:
  void receive_loop();

  std::string address_;  // "host:port" once bound
  std::mutex peers_mu_;
  std::map<int, std::string> peers_;  // peer -> address

  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<Frames> inbox_;
  bool stopping_ = false;
  Handler handler_;
  std::thread thread_;
};

}  // namespace braid::kv::ps
