#pragma once
// Internal: braid serve's front door. One thread accepts connections (within the caps on
// connections in all and per client address; beyond them a 503 at once), reads each request whole
// (headers, then body) with deadlines, and hands the complete request to `ready`; kept-alive
// connections come back between requests. Waiting for a client thus holds no request thread:
// slow or silent clients are closed at their deadline and cannot starve the others.
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "braid/serving/server.h"
#include "serving/connection.h"
#include "serving/request_framer.h"

namespace braid::serving {

class ConnectionGate {
 public:
  /// Takes a connection whose `bytes` start with a whole request (`request_end`).
  using Ready = std::function<void(std::unique_ptr<Connection>)>;
  ConnectionGate(const ServerOptions& options, Ready ready);
  ~ConnectionGate();
  /// Binds options.host:options.port; returns the port (options.port 0: a free one), -1 if it
  /// cannot.
  int listen();
  /// Serves on a thread of its own.
  void start();
  /// A connection whose answer is written: it waits for its next request (closed if stopping).
  void resume(std::unique_ptr<Connection> connection);
  /// Stops accepting and closes the connections waiting for a request; returns once done.
  void stop();

 private:
  using Clock = std::chrono::steady_clock;
  struct Waiting {
    std::unique_ptr<Connection> connection;
    RequestFramer framer;
    Clock::time_point deadline;
    bool started = false;       // a byte of the request arrived
    bool headers_read = false;  // ... and all its headers
    bool lingering = false;     // refused: the rest of the request is read and dropped until the deadline
    bool done = false;          // handed on, or closed
  };
  void run();
  void accept_all();
  void wait_for_request(std::unique_ptr<Connection> connection);
  void receive(Waiting& w);
  void advance(Waiting& w);
  // Answers `status` with a JSON error, then lingers: a client still sending its request would
  // otherwise get a reset, which can discard the answer before it is read.
  void refuse(Waiting& w, int status, const std::string& error);

  const ServerOptions options_;
  const Ready ready_;
  ClientCounts counts_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: resume and stop wake the thread's poll
  Clock::time_point accept_paused_until_;
  std::vector<Waiting> waiting_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> resumed_;  // under mu_
  bool stopping_ = false;                             // under mu_
  std::thread thread_;
};

/// A whole HTTP response with a JSON body {"error": message} that closes the connection.
std::string error_response(int status, const std::string& message);

}  // namespace braid::serving
