#include "node.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "braid/base/env.h"
#include "braid/base/error.h"

namespace braid::kv::ps {
namespace {

constexpr size_t kMaxEarlyMessages = 1024;  // data queued before the node table
constexpr double kAbortGraceS = 5;          // after a failure, the process exits if still running then

}  // namespace

Node::Node(Config config) : config_(std::move(config)), van_(make_van(config_.transport, role_name(config_.role), config_.verbose)) {
  me_.role = config_.role;
  me_.host = config_.host;
  me_.port = van_->bind(config_.host, 0);
  van_->start([this](Message&& m) { handle(std::move(m)); });
}

Node::~Node() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
  if (watchdog_.joinable()) watchdog_.join();
  van_->stop();
}

Message Node::control(Command c) const {
  Message m;
  m.head.command = static_cast<uint16_t>(c);
  m.head.sender = me_.id;
  m.head.recipient = kSchedulerId;
  return m;
}

void Node::start(std::function<void(Message&&)> data_handler, std::function<void(const std::string&)> on_failure) {
  data_handler_ = std::move(data_handler);
  on_failure_ = std::move(on_failure);
  van_->connect(kSchedulerId, config_.root_uri, config_.root_port, -1);
  nonce_ = random_nonce();
  const long long hint = env_int({"BRAID_PS_RANK", "OMPI_COMM_WORLD_RANK"}, -1);  // mpirun: the MPI rank
  Message reg = control(Command::kRegister);
  reg.body = cat(role_name(config_.role), " ", me_.host, " ", me_.port, " ", hint, " ", nonce_);
  scheduler_seen_ = Clock::now();
  van_->send(kSchedulerId, reg);
  const double timeout = static_cast<double>(env_int({"BRAID_PS_CONNECT_TIMEOUT"}, 120));
  std::unique_lock<std::mutex> lock(mu_);
  const bool answered = changed_.wait_for(lock, std::chrono::duration<double>(timeout),
                                          [this] { return registered_ || !failure_.empty(); });
  if (!failure_.empty()) throw Error(failure_);
  BRAID_CHECK(answered, "parameter server: the job did not start within ", timeout,
              " s (BRAID_PS_CONNECT_TIMEOUT): ", "is the scheduler running at ", config_.root_uri, ":",
              config_.root_port, " (DMLC_PS_ROOT_URI, DMLC_PS_ROOT_PORT), and have all ", config_.num_servers,
              " server(s) and ", config_.num_workers, " worker(s) been started?");
  lock.unlock();
  if (config_.heartbeat_interval_s > 0) heartbeat_thread_ = std::thread([this] { heartbeats(); });
}

void Node::send(int peer, Message& m) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.empty()) throw Error(failure_);
  }
  m.head.sender = me_.id;
  m.head.recipient = peer;
  van_->send(peer, m);
}

void Node::handle(Message&& m) {
  std::unique_lock<std::mutex> lock(mu_);
  // Control comes from the scheduler; data from the nodes of the table (checked once it is known).
  const bool data = m.head.command >= static_cast<uint16_t>(Command::kInit);
  if ((!data && m.head.sender != kSchedulerId) || (data && registered_ && !peers_.count(m.head.sender))) {
    van_->log(cat("dropped a message from an unknown sender: ", m.describe()));
    return;
  }
  if (m.head.sender == kSchedulerId) scheduler_seen_ = Clock::now();
  switch (m.command()) {
    case Command::kChallenge: {
      std::istringstream in(m.body);
      std::string nonce, proof;
      in >> nonce >> proof;
      challenged_ = true;
      if (!config_.secret.empty() && !same_proof(proof, proof_of_secret(config_.secret, "scheduler", nonce_))) {
        lock.unlock();
        abort(cat("the scheduler at ", config_.root_uri, ":", config_.root_port,
                  " does not know this job's secret (BRAID_PS_SECRET); refusing to join it"));
        return;
      }
      Message answer = control(Command::kProof);
      answer.head.request = m.head.request;
      // Without a secret the answer is empty: the scheduler refuses it, and logs the attempt.
      if (!config_.secret.empty()) answer.body = proof_of_secret(config_.secret, role_name(config_.role), nonce);
      van_->send(kSchedulerId, answer);
      return;
    }
    case Command::kRefused:
      lock.unlock();
      abort("the scheduler refused this node: " + m.body);
      return;
    case Command::kNodes: {
      if (!config_.secret.empty() && !challenged_) {
        lock.unlock();
        abort("the scheduler did not ask for the job's secret: it was started without BRAID_PS_SECRET");
        return;
      }
      const std::vector<NodeInfo> nodes = decode_nodes(m.body);
      peers_ = {kSchedulerId};
      for (const auto& n : nodes) {
        peers_.insert(n.id);
        if (n.id == m.head.recipient) me_ = n;
        if (n.role == Role::Server) servers_.push_back(n.id);
      }
      std::sort(servers_.begin(), servers_.end());
      for (const auto& n : nodes)
        if (n.role != config_.role) van_->connect(n.id, n.host, n.port, me_.id);
      van_->set_log_prefix(cat(role_name(me_.role), " ", me_.rank));
      registered_ = true;
      std::vector<Message> early = std::move(early_);
      lock.unlock();
      changed_.notify_all();
      for (auto& d : early) {
        if (peers_.count(d.head.sender))
          deliver(std::move(d));
        else
          van_->log(cat("dropped a message from an unknown sender: ", d.describe()));
      }
      return;
    }
    case Command::kBarrierDone:
      barriers_[m.head.request] = true;
      break;
    case Command::kHeartbeat:
      return;
    case Command::kExit:
      exited_ = true;
      break;
    case Command::kAbort:
      lock.unlock();
      abort(m.body);
      return;
    default:
      if (!registered_) {
        // Bounded: before the table nobody can be told from a stranger.
        if (early_.size() < kMaxEarlyMessages)
          early_.push_back(std::move(m));
        else
          van_->log(cat("dropped a message that came before the node table (", kMaxEarlyMessages,
                       " queued): ", m.describe()));
        return;
      }
      lock.unlock();
      deliver(std::move(m));
      return;
  }
  changed_.notify_all();
}

void Node::deliver(Message&& m) {
  if (data_handler_)
    data_handler_(std::move(m));
  else
    van_->log("no handler for data; dropped " + m.describe());
}

void Node::barrier(int group) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t request = next_request_++;
  barriers_[request] = false;
  Message m = control(Command::kBarrier);
  m.head.request = request;
  m.head.flags = group;
  van_->send(kSchedulerId, m);
  changed_.wait(lock, [&] { return barriers_[request] || !failure_.empty(); });
  barriers_.erase(request);
  if (!failure_.empty()) throw Error(failure_);
}

void Node::finish() {
  van_->send(kSchedulerId, control(Command::kFinished));
  wait_for_exit();
}

void Node::fail(const std::string& why) {
  Message m = control(Command::kAbort);
  m.body = why;
  van_->send(kSchedulerId, m);
  abort(cat(role_name(config_.role), " ", me_.rank, " failed: ", why));
}

void Node::wait_for_exit() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return exited_ || !failure_.empty(); });
  if (!failure_.empty()) throw Error(failure_);
}

void Node::heartbeats() {
  const auto interval = std::chrono::duration<double>(config_.heartbeat_interval_s);
  std::unique_lock<std::mutex> lock(mu_);
  while (!changed_.wait_for(lock, interval, [this] { return stopping_ || exited_ || !failure_.empty(); })) {
    const double silent = std::chrono::duration<double>(Clock::now() - scheduler_seen_).count();
    if (silent > config_.heartbeat_timeout_s) {
      lock.unlock();
      abort(cat("the scheduler at ", config_.root_uri, ":", config_.root_port, " sent nothing for ",
                static_cast<int>(silent), " s (PS_HEARTBEAT_TIMEOUT=", config_.heartbeat_timeout_s,
                "): it died or the network is down"));
      return;
    }
    van_->send(kSchedulerId, control(Command::kHeartbeat));
  }
}

// The job failed: every waiter throws `why`, and if the process is still running kAbortGraceS
// later (stuck outside Braid), it exits rather than hang.
void Node::abort(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.empty()) return;
    failure_ = "parameter server: " + why;
    watchdog_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mu_);
      if (changed_.wait_for(lock, std::chrono::duration<double>(kAbortGraceS), [this] { return stopping_; })) return;
      van_->log(cat("still running ", kAbortGraceS, " s after the job failed; exiting"));
      std::_Exit(1);
    });
  }
  changed_.notify_all();
  van_->log("error: " + why);
  if (on_failure_) on_failure_("parameter server: " + why);
}

}  // namespace braid::kv::ps
