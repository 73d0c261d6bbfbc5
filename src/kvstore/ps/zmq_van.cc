#include "zmq_van.h"

#include <unistd.h>

#include "braid/base/error.h"

namespace braid::kv::ps {
namespace {

constexpr int kPollMs = 100;     // how often the receive thread looks at stopping_
constexpr int kLingerMs = 2000;  // how long closing waits for queued sends (a last exit or abort)

// ZeroMQ hands the keep-alive below from the sending thread to its I/O thread through its own
// lock-free queues, which ThreadSanitizer cannot see (libzmq is not instrumented): these tell it.
#if defined(__SANITIZE_THREAD__)
#define BRAID_UNDER_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BRAID_UNDER_THREAD_SANITIZER 1
#endif
#endif
#ifdef BRAID_UNDER_THREAD_SANITIZER
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
void handed_to_zeromq(void* p) { __tsan_release(p); }
void taken_from_zeromq(void* p) { __tsan_acquire(p); }
#else
void handed_to_zeromq(void*) {}
void taken_from_zeromq(void*) {}
#endif

// The keep-alive of a payload sent without a copy, released by ZeroMQ once the bytes are out.
void release_payload(void*, void* hint) {
  taken_from_zeromq(hint);
  delete static_cast<std::shared_ptr<const void>*>(hint);
}

}  // namespace

ZmqVan::ZmqVan(std::string log_prefix, int verbose)
    : Van(std::move(log_prefix), verbose), context_(1), receiver_(context_, zmq::socket_type::router) {
  receiver_.set(zmq::sockopt::linger, 0);
  receiver_.set(zmq::sockopt::rcvhwm, 0);
  receiver_.set(zmq::sockopt::rcvtimeo, kPollMs);
  receiver_.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(kMaxPayloadBytes));
}

ZmqVan::~ZmqVan() { stop(); }

void ZmqVan::limit_message_size(uint64_t bytes) {
  receiver_.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(bytes));
}

int ZmqVan::bind(const std::string& host, int port) {
  const std::string address = cat("tcp://", host, ":", port == 0 ? std::string("*") : std::to_string(port));
  try {
    receiver_.bind(address);
  } catch (const zmq::error_t& e) {
    throw Error(cat("parameter server: cannot listen on ", host, ":", port == 0 ? "(any port)" : std::to_string(port),
                    ": ", e.what(), port ? "; is another job using this port? pick another DMLC_PS_ROOT_PORT" : ""));
  }
  const std::string bound = receiver_.get(zmq::sockopt::last_endpoint);
  const int bound_port = std::stoi(bound.substr(bound.rfind(':') + 1));
  if (verbose_ >= 1) log(cat("listening on ", bound));
  return bound_port;
}

void ZmqVan::start(Handler handler) {
  handler_ = std::move(handler);
  thread_ = std::thread([this] { receive_loop(); });
}

void ZmqVan::stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(peers_mu_);
  peers_.clear();
  receiver_.close();
  context_.shutdown();
}

void ZmqVan::connect(int peer, const std::string& host, int port, int my_id) {
  std::lock_guard<std::mutex> lock(peers_mu_);
  if (peers_.count(peer)) return;
  auto p = std::make_unique<Peer>();
  p->socket = zmq::socket_t(context_, zmq::socket_type::dealer);
  p->socket.set(zmq::sockopt::linger, kLingerMs);
  p->socket.set(zmq::sockopt::sndhwm, 0);
  // Unique per socket: a ROUTER drops a second peer that claims an identity already connected.
  static std::atomic<int> sockets{0};
  p->socket.set(zmq::sockopt::routing_id, cat("node", my_id, "-", getpid(), "-", sockets++));
  p->address = cat("tcp://", host, ":", port);
  p->socket.connect(p->address);
  if (verbose_ >= 1) log(cat("connected to node ", peer, " at ", p->address));
  peers_.emplace(peer, std::move(p));
}

void ZmqVan::send(int peer, const Message& m) {
  Peer* p;
  {
    std::lock_guard<std::mutex> lock(peers_mu_);
    auto it = peers_.find(peer);
    BRAID_CHECK(it != peers_.end(), "parameter server: no connection to node ", peer);
    p = it->second.get();
  }
  if (verbose_ >= 2) log("send " + m.describe());
  std::lock_guard<std::mutex> lock(p->mu);
  const std::string first = seal(m);
  if (m.payload.size == 0) {
    p->socket.send(zmq::buffer(first), zmq::send_flags::none);
    return;
  }
  p->socket.send(zmq::buffer(first), zmq::send_flags::sndmore);
  // ZeroMQ's C interface keeps the bytes through a raw hint; it owns this copy of the keep-alive.
  auto* keep = new std::shared_ptr<const void>(m.payload.owner);
  handed_to_zeromq(keep);
  zmq::message_t data(const_cast<void*>(m.payload.data), m.payload.size, release_payload, keep);
  p->socket.send(data, zmq::send_flags::none);
}

void ZmqVan::disconnect(int peer) {
  std::unique_ptr<Peer> gone;
  std::lock_guard<std::mutex> lock(peers_mu_);
  auto it = peers_.find(peer);
  if (it == peers_.end()) return;
  gone = std::move(it->second);  // closed here; ZeroMQ still sends what was queued (linger)
  peers_.erase(it);
}

// Nothing a peer sends may end this loop: a handler's error is logged like a malformed message.
void ZmqVan::receive_loop() {
  while (!stopping_.load()) {
    try {
      receive_one();
    } catch (const zmq::error_t& e) {
      if (stopping_.load()) return;
      log_rejection(cat("receive failed: ", e.what()));
    } catch (const std::exception& e) {
      log_rejection(cat("error while handling a message: ", e.what()));
    }
  }
}

// One multipart message: the sender's routing id (added by ROUTER), the header frame, and the
// payload frame if any. Malformed ones are logged and dropped.
void ZmqVan::receive_one() {
  zmq::message_t identity;
  if (!receiver_.recv(identity, zmq::recv_flags::none)) return;  // timed out
  std::vector<zmq::message_t> frames;
  bool more = identity.more();
  while (more && frames.size() < 3) {
    frames.emplace_back();
    (void)receiver_.recv(frames.back(), zmq::recv_flags::none);
    more = frames.back().more();
  }
  const std::string from = identity.to_string();
  while (more) {  // drain a message with too many frames
    zmq::message_t rest;
    (void)receiver_.recv(rest, zmq::recv_flags::none);
    more = rest.more();
    frames.clear();
  }
  if (frames.empty() || frames.size() > 2) {
    log_rejection(cat("rejected a message from '", from, "': ", frames.empty() ? "no frames" : "too many frames"));
    return;
  }
  Message m;
  try {
    decode_first_frame(frames[0].data(), frames[0].size(), frames.size() == 2 ? frames[1].size() : 0, m);
  } catch (const Error& e) {
    log_rejection(cat("rejected a message from '", from, "': ", e.what()));
    return;
  }
  if (frames.size() == 2) {
    auto data = std::make_shared<zmq::message_t>(std::move(frames[1]));
    m.payload = aligned_payload(data->data(), data->size(), data);
  }
  if (!admit(m, from)) return;
  if (verbose_ >= 2) log("recv " + m.describe());
  handler_(std::move(m));
}

std::unique_ptr<Van> make_zmq_van(std::string log_prefix, int verbose) {
  return std::make_unique<ZmqVan>(std::move(log_prefix), verbose);
}

}  // namespace braid::kv::ps
