#pragma once
// Internal: a client's connection to braid serve, and the count of connections per client
// address that caps them.
#include <sys/socket.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace braid::serving {

/// An IPv4 or IPv6 socket address as text, and its port.
std::pair<std::string, int> address_of(const sockaddr_storage& address);

/// Connections open, in all and per client address, within caps.
class ClientCounts {
 public:
  ClientCounts(size_t max_total, size_t max_per_client) : max_total_(max_total), max_per_client_(max_per_client) {}
  /// Counts one more connection from `client` if the caps allow it.
  bool admit(const std::string& client);
  void leave(const std::string& client);

 private:
  std::mutex mu_;
  const size_t max_total_, max_per_client_;
  size_t total_ = 0;
  std::unordered_map<std::string, size_t> per_client_;  // only clients with connections open
};

/// An admitted connection: its socket (closed with it) and the bytes received and not yet
/// handled. Counted in `counts` while it lives.
struct Connection {
  Connection(int fd, std::string peer, int peer_port, ClientCounts& counts)
      : fd(fd), peer(std::move(peer)), peer_port(peer_port), counts(counts) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  /// Drops the request just answered (what its handler left unread too), keeping what came after
  /// it; a large body's buffer is given back, so an idle connection holds little memory.
  void drop_request();

  const int fd;
  const std::string peer;  // the client's address
  const int peer_port;
  std::string bytes;
  size_t request_end = 0;  // a whole request, once read, is bytes [0, request_end)

 private:
  ClientCounts& counts;
};

}  // namespace braid::serving
