#include "node.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "batch.h"
#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/base/printable.h"
#include "frame_auth.h"

namespace braid::kv::ps {
namespace {

constexpr size_t kMaxEarlyMessages = 1024;  // data queued before the node table
constexpr double kAbortGraceS = 5;          // after a failure, the process exits if still running then

}  // namespace

Node::Node(Config config)
    : config_(std::move(config)), van_(make_van(config_.transport, role_name(config_.role), config_.verbose)) {
  if (!config_.secret.empty()) van_->require_auth();
  me_.role = config_.role;
  me_.host = config_.host;
  me_.port = van_->bind(config_.host, config_.node_port);
  van_->start([this](Message&& m) { handle(std::move(m)); });
}

Node::~Node() { stop(); }

// In this order: the heartbeats end, then the receive thread (which may still fail the job and
// start the watchdog), then the watchdog, which sees stopping_ and returns.
void Node::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
  van_->stop();
  if (watchdog_.joinable()) watchdog_.join();
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
  // mpirun: the MPI rank; srun: the task's rank in its step
  const long long hint = env_int({"BRAID_PS_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"}, -1);
  Message reg = control(Command::kRegister);
  reg.body = cat(role_name(config_.role), " ", me_.host, " ", me_.port, " ", hint, " ", nonce_);
  if (!config_.secret.empty()) reg.body += " " + proof_of_secret(config_.secret, "register", reg.body);
  scheduler_seen_ = Clock::now();
  van_->send(kSchedulerId, reg);
  const double timeout = config_.connect_timeout_s;
  std::unique_lock<std::mutex> lock(mu_);
  const bool answered = changed_.wait_for(lock, std::chrono::duration<double>(timeout),
                                          [this] { return registered_ || !failure_.empty(); });
  if (!failure_.empty()) throw Error(failure_);
  BRAID_CHECK(answered, "parameter server: the job did not start within ", timeout,
              " s (BRAID_PS_CONNECT_TIMEOUT): ", "is the scheduler running at ", config_.root_uri, ":",
              config_.root_port, " (DMLC_PS_ROOT_URI, DMLC_PS_ROOT_PORT), and have all ", config_.num_servers,
              " server(s) and ", config_.num_workers, " worker(s) been started?",
              unverified_refusal_.empty() ? ""
                                          : " A refusal came that does not prove the job's secret (is this node's "
                                            "BRAID_PS_SECRET the scheduler's?): " +
                                                unverified_refusal_);
  lock.unlock();
  if (config_.heartbeat_interval_s > 0) heartbeat_thread_ = std::thread([this] { heartbeats(); });
}

thread_local Node::Outbox* Node::outbox_ = nullptr;

void Node::check_running() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!failure_.empty()) throw Error(failure_);
}

void Node::send(int peer, Message& m) {
  check_running();
  m.head.sender = me_.id;
  m.head.recipient = peer;
  if (outbox_ && outbox_->node == this) {  // inside a batch's delivery: leaves with the others
    outbox_->to[peer].push_back(m);
    return;
  }
  van_->send(peer, m);
}

size_t Node::send(const std::vector<int>& peers, std::vector<Message>& messages) {
  check_running();
  std::map<int, std::vector<Message>> by_peer;
  for (size_t i = 0; i < messages.size(); ++i) by_peer[peers[i]].push_back(std::move(messages[i]));
  size_t sent = 0;
  for (auto& [peer, list] : by_peer) sent += send_in_batches(peer, list);
  return sent;
}

size_t Node::send_in_batches(int peer, std::vector<Message>& messages) {
  std::vector<Message> run;
  size_t sent = 0;
  auto send_run = [&] {
    ++sent;
    Message batch = run.size() == 1 ? std::move(run[0]) : pack_batch(run);
    batch.head.sender = me_.id;
    batch.head.recipient = peer;
    van_->send(peer, batch);
    run.clear();
  };
  for (Message& m : messages) {
    m.head.sender = me_.id;
    m.head.recipient = peer;
    if (batchable(m)) {
      run.push_back(std::move(m));
      if (run.size() == kMaxBatchParts) send_run();
      continue;
    }
    if (!run.empty()) send_run();
    van_->send(peer, m);
    ++sent;
  }
  if (!run.empty()) send_run();
  return sent;
}

void Node::handle(Message&& m) {
  std::unique_lock<std::mutex> lock(mu_);
  // Control comes from the scheduler; data from the nodes of the table that talk to this one.
  const bool data = m.head.command >= static_cast<uint16_t>(Command::kInit);
  if ((!data && m.head.sender != kSchedulerId) || (data && registered_ && !data_senders_.count(m.head.sender))) {
    van_->log_rejection(cat("dropped a message from an unknown sender: ", m.describe()));
    return;
  }
  if (is_handshake(m.command()) && (registered_ || (challenged_ && m.command() == Command::kChallenge))) {
    van_->log_rejection(cat("dropped a handshake message after the handshake: ", m.describe()));
    return;
  }
  if (m.head.sender == kSchedulerId && (m.authenticated || config_.secret.empty())) scheduler_seen_ = Clock::now();
  switch (m.command()) {
    case Command::kChallenge: {
      std::istringstream in(m.body);
      std::string nonce, job_nonce, proof;
      in >> nonce >> job_nonce >> proof;
      if (config_.secret.empty()) {  // the scheduler refuses the empty answer, and logs the attempt
        Message answer = control(Command::kProof);
        answer.head.request = m.head.request;
        van_->send(kSchedulerId, answer);
        return;
      }
      if (!same_proof(proof, proof_of_secret(config_.secret, "scheduler", nonce_ + ":" + job_nonce))) {
        van_->log_rejection(cat("dropped a challenge that does not prove the job's secret: either the scheduler at ",
                                config_.root_uri, ":", config_.root_port,
                                " has another BRAID_PS_SECRET, or someone else sent it"));
        return;
      }
      challenged_ = true;
      van_->set_auth(std::make_shared<FrameAuth>(config_.secret, job_nonce));
      Message answer = control(Command::kProof);
      answer.head.request = m.head.request;
      answer.body = proof_of_secret(config_.secret, role_name(config_.role), nonce);
      van_->send(kSchedulerId, answer);
      return;
    }
    case Command::kRefused: {
      const auto space = m.body.find(' ');
      const std::string proof = m.body.substr(0, space);
      const std::string why = space == std::string::npos ? "" : m.body.substr(space + 1);
      if (!config_.secret.empty() &&
          !same_proof(proof, proof_of_secret(config_.secret, "refused", nonce_ + ":" + why))) {
        unverified_refusal_ = printable(why, 300);
        van_->log_rejection("dropped a refusal that does not prove the job's secret: " + m.describe());
        return;
      }
      lock.unlock();
      abort("the scheduler refused this node: " + why);
      return;
    }
    case Command::kNodes: {
      if (registered_) {
        van_->log_rejection("dropped a second node table: " + m.describe());
        return;
      }
      const std::vector<NodeInfo> nodes = decode_nodes(m.body);
      // Workers hear from servers, servers from workers and the scheduler (workers left).
      data_senders_.clear();
      if (config_.role == Role::Server) data_senders_.insert(kSchedulerId);
      for (const auto& n : nodes) {
        if (n.role != config_.role) data_senders_.insert(n.id);
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
        if (data_senders_.count(d.head.sender))
          deliver(std::move(d));
        else
          van_->log_rejection(cat("dropped a message from an unknown sender: ", d.describe()));
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
          van_->log_rejection(cat("dropped a message that came before the node table (", kMaxEarlyMessages,
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
  if (!data_handler_) {
    van_->log("no handler for data; dropped " + m.describe());
    return;
  }
  if (m.command() != Command::kBatch) {
    data_handler_(std::move(m));
    return;
  }
  std::vector<Message> parts;
  try {
    parts = unpack_batch(m);
  } catch (const Error& e) {
    van_->log_rejection(cat("dropped a malformed batch (", e.what(), "): ", m.describe()));
    return;
  }
  Outbox box{this, {}};
  Outbox* outer = std::exchange(outbox_, &box);
  for (Message& part : parts) data_handler_(std::move(part));
  outbox_ = outer;
  for (auto& [peer, list] : box.to) {
    try {
      send_in_batches(peer, list);
    } catch (const Error& e) {  // the job failed meanwhile: nobody waits for the answers
      van_->log(cat("could not answer a batch from node ", m.head.sender, ": ", e.what()));
    }
  }
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
    lock.unlock();
    try {
      van_->send(kSchedulerId, control(Command::kHeartbeat));
    } catch (const Error& e) {  // the van stopped: the node is going away
      van_->log_rejection(cat("heartbeat not sent: ", e.what()));
    }
    lock.lock();
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
