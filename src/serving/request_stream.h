#pragma once
// Internal: what cpp-httplib reads a request from and writes its answer to. The request was read
// whole by the connection gate, so reading never waits for the client; writing the answer waits
// at most the write timeout in all, so a client that does not take its answer frees the thread.
#include <httplib.h>

#include <chrono>
#include <optional>

#include "serving/connection.h"

namespace braid::serving {

class RequestStream : public httplib::Stream {
 public:
  RequestStream(Connection& connection, double write_timeout_s)
      : c_(connection), write_timeout_(std::chrono::duration<double>(write_timeout_s)) {}
  bool is_readable() const override { return at_ < c_.request_end; }
  bool is_writable() const override { return !write_failed_; }
  /// The request's bytes, then end of stream: never the next request's.
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return c_.fd; }

 private:
  Connection& c_;
  size_t at_ = 0;
  std::chrono::duration<double> write_timeout_;
  std::optional<std::chrono::steady_clock::time_point> write_deadline_;  // from the answer's first byte
  bool write_failed_ = false;
};

}  // namespace braid::serving
