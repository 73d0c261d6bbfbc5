#include "serving/connection_gate.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "braid/base/error.h"

namespace braid::serving {
namespace {

constexpr size_t kReadChunk = 128 << 10;           // read per wake-up: one client cannot hold the thread
constexpr auto kLinger = std::chrono::seconds(2);  // a refused request's rest is dropped this long at most

const char* reason(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// Best effort: a refusal is small and goes to an empty send buffer; a client that does not take
// it gets the close alone.
void send_now(int fd, const std::string& bytes) {
  (void)::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

std::string error_response(int status, const std::string& message) {
  const std::string body =
      nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return cat("HTTP/1.1 ", status, " ", reason(status),
             "\r\nContent-Type: application/json\r\nContent-Length: ", body.size(), "\r\nConnection: close\r\n\r\n",
             body);
}

ConnectionGate::ConnectionGate(const ServerOptions& options, Ready ready)
    : options_(options),
      ready_(std::move(ready)),
      counts_(options.max_connections, options.max_connections_per_client) {
  BRAID_CHECK(::pipe2(wake_, O_NONBLOCK | O_CLOEXEC) == 0, "braid serve: cannot make a pipe: ", std::strerror(errno));
}

ConnectionGate::~ConnectionGate() {
  stop();
  for (int fd : {listener_, wake_[0], wake_[1]})
    if (fd >= 0) ::close(fd);
}

int ConnectionGate::listen() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (::getaddrinfo(options_.host.c_str(), std::to_string(options_.port).c_str(), &hints, &found) != 0) return -1;
  for (addrinfo* a = found; a && listener_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    // A full backlog loses SYNs, each costing the client a 1 s retransmission: a proxy opens its
    // pool of connections in one burst.
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0)
      listener_ = fd;
    else
      ::close(fd);
  }
  ::freeaddrinfo(found);
  if (listener_ < 0) return -1;
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&bound), &len);
  return address_of(bound).second;
}

void ConnectionGate::start() {
  thread_ = std::thread([this] { run(); });
}

void ConnectionGate::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  (void)::write(wake_[1], "x", 1);
  if (thread_.joinable()) thread_.join();
}

void ConnectionGate::resume(std::unique_ptr<Connection> connection) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;  // closes it
    resumed_.push_back(std::move(connection));
  }
  (void)::write(wake_[1], "x", 1);
}

void ConnectionGate::run() {
  for (;;) {
    std::vector<std::unique_ptr<Connection>> resumed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;
      resumed.swap(resumed_);
    }
    for (auto& c : resumed) wait_for_request(std::move(c));
    std::erase_if(waiting_, [](const Waiting& w) { return w.done; });

    auto now = Clock::now();
    const bool accepting = now >= accept_paused_until_;
    std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {accepting ? listener_ : -1, POLLIN, 0}};
    auto next = now + std::chrono::hours(1);
    for (const auto& w : waiting_) {
      fds.push_back({w.connection->fd, POLLIN, 0});
      next = std::min(next, w.deadline);
    }
    if (!accepting) next = std::min(next, accept_paused_until_);
    const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
    ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<int64_t>(wait_ms, 0, 3600000)));

    char drained[64];
    while (::read(wake_[0], drained, sizeof drained) > 0) {
    }
    if (fds[1].revents & POLLIN) accept_all();
    now = Clock::now();
    for (size_t i = 0; i < waiting_.size() && i + 2 < fds.size(); ++i) {
      Waiting& w = waiting_[i];
      if (fds[i + 2].revents) receive(w);
      if (w.done || now < w.deadline) continue;
      if (w.started && !w.lingering)
        refuse(w, 408,
               cat("the request did not arrive in time (braid serve --",
                   w.headers_read ? "body-timeout " : "header-timeout ",
                   w.headers_read ? options_.body_timeout_s : options_.header_timeout_s, " s)"));
      else  // idle (closed without a word, as HTTP/1.1 allows), or done lingering
        w.done = true, w.connection.reset();
    }
  }
  waiting_.clear();  // closes them
}

void ConnectionGate::accept_all() {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd = ::accept4(listener_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of file descriptors: the pending connection stays in the backlog; try again shortly
      // rather than spinning on it.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        accept_paused_until_ = Clock::now() + std::chrono::milliseconds(100);
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    auto [address, port] = address_of(peer);
    if (!counts_.admit(address)) {
      send_now(fd, error_response(503, cat("too many connections (braid serve --max-connections ",
                                           options_.max_connections, ", --max-connections-per-client ",
                                           options_.max_connections_per_client, "); try again later")));
      ::close(fd);
      continue;
    }
    // Headers and body go out as separate writes: without this, Nagle holds the body back until
    // the peer's delayed ACK (40 ms behind a proxy).
    int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    wait_for_request(std::make_unique<Connection>(fd, std::move(address), port, counts_));
  }
}

void ConnectionGate::wait_for_request(std::unique_ptr<Connection> connection) {
  Waiting w{std::move(connection), RequestFramer({options_.max_header_bytes, options_.max_body_bytes}),
            Clock::now() + seconds(options_.keep_alive_timeout_s)};
  advance(w);  // a pipelined request may be there already
  if (!w.done) waiting_.push_back(std::move(w));
}

void ConnectionGate::receive(Waiting& w) {
  if (w.lingering) {
    char dropped[16 << 10];
    const ssize_t n = ::recv(w.connection->fd, dropped, sizeof dropped, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
      w.done = true, w.connection.reset();
    return;
  }
  std::string& bytes = w.connection->bytes;
  const size_t had = bytes.size();
  bytes.resize(had + kReadChunk);
  const ssize_t n = ::recv(w.connection->fd, bytes.data() + had, kReadChunk, 0);
  bytes.resize(had + static_cast<size_t>(std::max<ssize_t>(n, 0)));
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    w.done = true;  // the client is gone
    w.connection.reset();
    return;
  }
  advance(w);
}

void ConnectionGate::advance(Waiting& w) {
  const Framing f = w.framer.update(w.connection->bytes);
  if (!w.started && !w.connection->bytes.empty()) {
    w.started = true;
    w.deadline = Clock::now() + seconds(options_.header_timeout_s);
  }
  if (f.headers_complete && !w.headers_read) {
    w.headers_read = true;
    w.deadline = Clock::now() + seconds(options_.body_timeout_s);
    if (f.continue_wanted && f.state == Framing::State::Incomplete)
      send_now(w.connection->fd, "HTTP/1.1 100 Continue\r\n\r\n");
  }
  if (f.state == Framing::State::Refused) {
    refuse(w, f.status, f.error);
  } else if (f.state == Framing::State::Complete) {
    w.connection->request_end = f.end;
    w.done = true;
    ready_(std::move(w.connection));
  }
}

void ConnectionGate::refuse(Waiting& w, int status, const std::string& error) {
  send_now(w.connection->fd, error_response(status, error));
  ::shutdown(w.connection->fd, SHUT_WR);
  w.connection->bytes.clear();
  w.lingering = true;
  w.deadline = Clock::now() + kLinger;
}

}  // namespace braid::serving
