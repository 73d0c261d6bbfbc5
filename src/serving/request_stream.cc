#include "serving/request_stream.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>

namespace braid::serving {

ssize_t RequestStream::read(char* ptr, size_t size) {
  const size_t n = std::min(size, c_.request_end - at_);
  std::memcpy(ptr, c_.bytes.data() + at_, n);
  at_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t RequestStream::write(const char* ptr, size_t size) {
  using Clock = std::chrono::steady_clock;
  if (!write_deadline_) write_deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(write_timeout_);
  size_t sent = 0;
  while (sent < size && !write_failed_) {
    const ssize_t n = ::send(c_.fd, ptr + sent, size - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(*write_deadline_ - Clock::now()).count();
    pollfd p{c_.fd, POLLOUT, 0};
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0)
      write_failed_ = true;
  }
  return write_failed_ ? -1 : static_cast<ssize_t>(size);
}

void RequestStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = c_.peer;
  port = c_.peer_port;
}

void RequestStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  std::tie(ip, port) = ::getsockname(c_.fd, reinterpret_cast<sockaddr*>(&a), &len) == 0
                           ? address_of(a)
                           : std::pair<std::string, int>{"", -1};
}

}  // namespace braid::serving
