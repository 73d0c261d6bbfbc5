#pragma once
// A client socket to braid serve that sends exactly the bytes it is given (malformed, partial or
// slow requests an HTTP library would not send) and reads what comes back, with deadlines
// (test helper).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

namespace braid::test {

class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  /// False once the server has closed the connection.
  bool send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  /// Reads until the server closes the connection or `seconds` pass; whether it closed.
  bool read_until_closed(double seconds) {
    return read_until([] { return false; }, seconds);
  }
  /// Reads until a whole answer (headers and Content-Length bytes of body) is in, for at most
  /// `seconds`; whether it came.
  bool read_response(double seconds) {
    read_until([this] { return has_response(); }, seconds);
    return has_response();
  }
  /// Whether the server has closed the connection by now, reading what came before.
  bool closed_now() { return read_until_closed(0); }
  const std::string& received() const { return received_; }
  /// The answer's status code, or 0 before a status line.
  int status() const {
    return received_.rfind("HTTP/1.1 ", 0) == 0 && received_.size() > 12 ? std::stoi(received_.substr(9, 3)) : 0;
  }
  /// Forgets what was received (before the next request on the connection).
  void clear() { received_.clear(); }
  /// The answer's body (after the headers).
  std::string body() const {
    const auto at = received_.find("\r\n\r\n");
    return at == std::string::npos ? "" : received_.substr(at + 4);
  }

 private:
  // Reads until `done()`, the server closes the connection (true) or `seconds` pass (false).
  template <class Done>
  bool read_until(Done done, double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0))) <= 0) return false;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return true;  // closed (or reset)
      received_.append(buf, static_cast<size_t>(n));
    }
    return false;
  }
  bool has_response() const {
    const auto end = received_.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    const auto length = received_.find("Content-Length: ");
    const size_t body = length < end ? std::stoul(received_.substr(length + 16)) : 0;
    return received_.size() >= end + 4 + body;
  }

  int fd_;
  bool connected_ = false;
  std::string received_;
};

}  // namespace braid::test
