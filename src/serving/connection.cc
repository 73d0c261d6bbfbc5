#include "serving/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace braid::serving {

std::pair<std::string, int> address_of(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = "";
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    return {text, ntohs(v4.sin_port)};
  }
  if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    return {text, ntohs(v6.sin6_port)};
  }
  return {"", -1};
}

bool ClientCounts::admit(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = per_client_.find(client);
  const size_t mine = it == per_client_.end() ? 0 : it->second;
  if (total_ >= max_total_ || mine >= max_per_client_) return false;
  ++total_;
  ++per_client_[client];
  return true;
}

void ClientCounts::leave(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  --total_;
  if (auto it = per_client_.find(client); --it->second == 0) per_client_.erase(it);
}

void Connection::drop_request() {
  constexpr size_t kKeptCapacity = 1 << 20;
  bytes.erase(0, request_end);
  request_end = 0;
  if (bytes.capacity() > kKeptCapacity) bytes.shrink_to_fit();
}

Connection::~Connection() {
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  counts.leave(peer);
}

}  // namespace braid::serving
