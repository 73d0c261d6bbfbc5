#include "inproc_van.h"

#include <set>
#include <vector>

#include "braid/base/error.h"

namespace braid::kv::ps {
namespace {

// The process's addresses: "host:port" -> the van bound there. As a ZeroMQ connection does,
// messages to an address nobody listens at yet wait for it; those to a van that stopped are lost.
struct Network {
  std::mutex mu;
  std::map<std::string, InProcessVan*> bound;
  std::map<std::string, std::vector<InProcessVan::Frames>> waiting;
  std::set<std::string> closed;
  int next_port = 40000;  // what port 0 gets: numbers of this table only, no OS port is used
};

Network& network() {
  static Network* n = new Network();  // never destroyed: vans may stop during exit
  return *n;
}

}  // namespace

InProcessVan::InProcessVan(std::string log_prefix, int verbose) : Van(std::move(log_prefix), verbose) {}

InProcessVan::~InProcessVan() { stop(); }

int InProcessVan::bind(const std::string& host, int port) {
  Network& net = network();
  std::lock_guard<std::mutex> lock(net.mu);
  if (port == 0)
    while (net.bound.count(cat(host, ":", net.next_port))) ++net.next_port;
  const int chosen = port == 0 ? net.next_port++ : port;
  const std::string address = cat(host, ":", chosen);
  BRAID_CHECK(!net.bound.count(address), "parameter server: cannot listen on ", address,
              " (in process): another node of this process listens there; pick another DMLC_PS_ROOT_PORT");
  net.bound[address] = this;
  net.closed.erase(address);
  address_ = address;
  if (auto it = net.waiting.find(address); it != net.waiting.end()) {
    for (auto& frames : it->second) deliver(std::move(frames));
    net.waiting.erase(it);
  }
  if (verbose_ >= 1) log(cat("listening on ", address, " (in process)"));
  return chosen;
}

void InProcessVan::limit_message_size(uint64_t) {}  // messages of this process only

void InProcessVan::start(Handler handler) {
  handler_ = std::move(handler);
  thread_ = std::thread([this] { receive_loop(); });
}

void InProcessVan::stop() {
  {
    Network& net = network();
    std::lock_guard<std::mutex> lock(net.mu);  // after this no sender reaches this van
    if (!address_.empty()) {
      net.bound.erase(address_);
      net.closed.insert(address_);
    }
    address_.clear();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    inbox_.clear();
  }
  arrived_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void InProcessVan::connect(int peer, const std::string& host, int port, int) {
  std::lock_guard<std::mutex> lock(peers_mu_);
  if (peers_.emplace(peer, cat(host, ":", port)).second && verbose_ >= 1)
    log(cat("connected to node ", peer, " at ", host, ":", port, " (in process)"));
}

void InProcessVan::send(int peer, const Message& m) {
  std::string address;
  {
    std::lock_guard<std::mutex> lock(peers_mu_);
    auto it = peers_.find(peer);
    BRAID_CHECK(it != peers_.end(), "parameter server: no connection to node ", peer);
    address = it->second;
  }
  if (verbose_ >= 2) log("send " + m.describe());
  Network& net = network();
  std::lock_guard<std::mutex> lock(net.mu);  // sealed in the order of delivery
  Frames frames{seal(m), std::string(static_cast<const char*>(m.payload.data), m.payload.size)};
  auto it = net.bound.find(address);
  if (it != net.bound.end()) {
    it->second->deliver(std::move(frames));
  } else if (net.closed.count(address)) {  // a node that is gone: lost, not the sender's error
    if (verbose_ >= 1) log(cat("dropped ", m.describe(), ": the node at ", address, " stopped"));
  } else {
    net.waiting[address].push_back(std::move(frames));
  }
}

void InProcessVan::disconnect(int peer) {
  std::lock_guard<std::mutex> lock(peers_mu_);
  peers_.erase(peer);
}

void InProcessVan::deliver(Frames frames) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    inbox_.push_back(std::move(frames));
  }
  arrived_.notify_one();
}

void InProcessVan::receive_loop() {
  for (;;) {
    Frames frames;
    {
      std::unique_lock<std::mutex> lock(mu_);
      arrived_.wait(lock, [this] { return stopping_ || !inbox_.empty(); });
      if (stopping_) return;
      frames = std::move(inbox_.front());
      inbox_.pop_front();
    }
    Message m;
    try {
      decode_first_frame(frames.first.data(), frames.first.size(), frames.payload.size(), m);
    } catch (const Error& e) {
      log_rejection(cat("rejected a message: ", e.what()));
      continue;
    }
    if (!frames.payload.empty()) {
      auto bytes = std::make_shared<std::string>(std::move(frames.payload));
      m.payload = aligned_payload(bytes->data(), bytes->size(), bytes);
    }
    if (!admit(m, "in process")) continue;
    if (verbose_ >= 2) log("recv " + m.describe());
    try {
      handler_(std::move(m));
    } catch (const std::exception& e) {  // as over ZeroMQ: nothing a peer sends ends this loop
      log_rejection(cat("error while handling a message: ", e.what()));
    }
  }
}

}  // namespace braid::kv::ps
