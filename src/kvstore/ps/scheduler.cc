#include "scheduler.h"

#include <algorithm>
#include <sstream>

#include "braid/base/error.h"
#include "frame_auth.h"
#include "key_value.h"

namespace braid::kv::ps {

Scheduler::Scheduler(Config config)
    : config_(std::move(config)),
      van_(make_van(config_.transport, "scheduler", config_.verbose)),
      job_nonce_(random_nonce()) {
  if (!config_.secret.empty()) {
    van_->require_auth();
    van_->set_auth(std::make_shared<FrameAuth>(config_.secret, job_nonce_));
  }
}

int Scheduler::run() {
  van_->limit_message_size(sizeof(Header) + kMaxBodyBytes);  // control only: no payloads
  van_->bind(config_.host, config_.root_port);
  van_->start([this](Message&& m) { handle(std::move(m)); });
  van_->log(cat("waiting for ", config_.num_servers, " server(s) and ", config_.num_workers, " worker(s) on ",
                config_.host, ":", config_.root_port, config_.secret.empty() ? "" : " (nodes must prove the secret)"));
  std::unique_lock<std::mutex> lock(mu_);
  const auto tick = std::chrono::duration<double>(
      config_.heartbeat_interval_s > 0 ? std::min(config_.heartbeat_interval_s, 1.0) : 1.0);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(config_.connect_timeout_s));
  while (!ended_) {
    changed_.wait_for(lock, tick, [this] { return ended_; });
    if (ended_) break;
    expire_pending();
    if (!table_sent_ && Clock::now() > deadline)
      abort(cat("only ", nodes_.size(), " of the job's ", config_.num_servers + config_.num_workers,
                " nodes registered within ", config_.connect_timeout_s,
                " s (BRAID_PS_CONNECT_TIMEOUT); were all servers and workers started, with this job's "
                "DMLC_PS_ROOT_URI, DMLC_PS_ROOT_PORT and BRAID_PS_SECRET?"));
    else if (table_sent_ && config_.heartbeat_interval_s > 0)
      watch_heartbeats();
  }
  const int status = status_;
  lock.unlock();
  van_->stop();
  return status;
}

const NodeInfo* Scheduler::sender_of(const Message& m) {
  for (const auto& n : nodes_)
    if (n.id == m.head.sender) return &n;
  van_->log_rejection(cat("ignored ", m.describe(), ": the sender is not a node of this job"));
  return nullptr;
}

void Scheduler::handle(Message&& m) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ended_) return;
  if (m.command() == Command::kRegister) return on_register(m);
  if (m.command() == Command::kProof) return on_proof(m);
  const NodeInfo* from = sender_of(m);
  if (!from) return;
  last_seen_[from->id] = Clock::now();
  switch (m.command()) {
    case Command::kBarrier:
      on_barrier(m, *from);
      break;
    case Command::kHeartbeat:
      break;
    case Command::kFinished:
      if (from->role != Role::Worker || !finished_.insert(from->id).second) {
        van_->log_rejection("ignored " + m.describe() + ": not a worker, or finished before");
        break;
      }
      if (static_cast<int>(finished_.size()) == config_.num_workers) {
        van_->log("every worker finished; the job is over");
        send_to_all(Command::kExit, "");
        ended_ = true;
        changed_.notify_all();
        break;
      }
      // The others go on without it: sync rounds and barriers stop waiting for it (a worker
      // with fewer batches than the others no longer hangs them, MXNet issue 7888).
      tell_servers_workers_left();
      release_barrier(kWorkerGroup);
      break;
    case Command::kAbort:  // a node failed and says why
      abort(cat(describe(*from), " failed: ", m.body));
      break;
    default:
      van_->log_rejection("ignored " + m.describe());
      break;
  }
}

void Scheduler::on_register(const Message& m) {
  std::istringstream in(m.body);
  std::string role, proof;
  Pending p;
  const bool parsed = static_cast<bool>(in >> role >> p.node.host >> p.node.port >> p.rank_hint >> p.node_nonce);
  in >> proof;
  const std::optional<Role> r = role_from_name(role);
  if (!parsed || !r || *r == Role::Scheduler || p.node.host.size() > 255 || p.node.port <= 0 || p.node.port > 65535 ||
      p.node_nonce.size() > 64) {
    van_->log_rejection(cat("rejected a malformed registration '", m.body, "'"));
    return;
  }
  p.node.role = *r;
  const std::string address = cat(p.node.host, ":", p.node.port);
  // The registration proves the secret (no socket is opened for one that does not); the
  // challenge that follows proves it is fresh, not replayed.
  const std::string registration = m.body.substr(0, m.body.rfind(' '));
  if (!config_.secret.empty() && !same_proof(proof, proof_of_secret(config_.secret, "register", registration))) {
    van_->log_rejection(
        cat("refused a ", role, " at ", address, ": it does not know the job's secret (BRAID_PS_SECRET)"));
    refuse(p.node.host, p.node.port, p.node_nonce,
           "this node does not know the job's secret: set BRAID_PS_SECRET to the job's value "
           "(braid launch passes it on)");
    return;
  }
  if (table_sent_) {
    van_->log_rejection(cat("refused a ", role, " at ", address, ": the job is complete"));
    refuse(p.node.host, p.node.port, p.node_nonce,
           cat("the job's ", config_.num_servers, " server(s) and ", config_.num_workers,
               " worker(s) have all registered already"));
    return;
  }
  if (config_.secret.empty()) {
    const int ticket = next_ticket_--;
    van_->connect(ticket, p.node.host, p.node.port, kSchedulerId);
    admit(p.node, p.rank_hint, ticket, p.node_nonce);
    return;
  }
  for (auto it = pending_.begin(); it != pending_.end(); ++it)  // the same node again: the latest counts
    if (it->second.node.host == p.node.host && it->second.node.port == p.node.port) {
      forget_pending(it->first);
      break;
    }
  if (pending_.size() >= kMaxPending) {
    van_->log_rejection(
        cat("dropped a registration from ", address, ": ", kMaxPending, " registrations already wait for their proof"));
    return;
  }
  const int ticket = next_ticket_--;
  van_->connect(ticket, p.node.host, p.node.port, kSchedulerId);
  p.nonce = random_nonce();
  p.since = Clock::now();
  Message challenge;
  challenge.head.command = static_cast<uint16_t>(Command::kChallenge);
  challenge.head.sender = kSchedulerId;
  challenge.head.request = static_cast<uint64_t>(-ticket);
  challenge.body =
      cat(p.nonce, " ", job_nonce_, " ", proof_of_secret(config_.secret, "scheduler", p.node_nonce + ":" + job_nonce_));
  van_->send(ticket, challenge);
  pending_[ticket] = std::move(p);
}

void Scheduler::on_proof(const Message& m) {
  const int ticket = -static_cast<int>(m.head.request & 0x7fffffff);
  auto it = pending_.find(ticket);
  if (it == pending_.end()) {
    van_->log_rejection("ignored a proof without a registration");
    return;
  }
  Pending p = std::move(it->second);
  pending_.erase(it);
  if (!same_proof(m.body, proof_of_secret(config_.secret, role_name(p.node.role), p.nonce))) {
    van_->disconnect(ticket);
    van_->log_rejection(cat("refused a ", role_name(p.node.role), " at ", p.node.host, ":", p.node.port,
                            ": it does not know the job's secret (BRAID_PS_SECRET)"));
    refuse(p.node.host, p.node.port, p.node_nonce,
           "this node does not know the job's secret: set BRAID_PS_SECRET to the job's value "
           "(braid launch passes it on)");
    return;
  }
  admit(p.node, p.rank_hint, ticket, p.node_nonce);
}

void Scheduler::forget_pending(int ticket) {
  pending_.erase(ticket);
  van_->disconnect(ticket);
}

void Scheduler::expire_pending() {
  const auto now = Clock::now();
  for (auto it = pending_.begin(); it != pending_.end();) {
    const int ticket = it->first;
    const bool expired = now - it->second.since > kPendingTimeout;
    ++it;
    if (expired) {
      van_->log_rejection(
          cat("dropped a registration that did not answer its challenge within ", kPendingTimeout.count(), " s"));
      forget_pending(ticket);
    }
  }
}

void Scheduler::refuse(const std::string& host, int port, const std::string& node_nonce, const std::string& why) {
  if (!refusals_.allow()) return;  // a flood of registrations gets no answers, and costs no sockets
  Message m;
  m.head.command = static_cast<uint16_t>(Command::kRefused);
  m.head.sender = kSchedulerId;
  m.body =
      cat(config_.secret.empty() ? "-" : proof_of_secret(config_.secret, "refused", node_nonce + ":" + why), " ", why);
  const int ticket = next_ticket_--;
  van_->connect(ticket, host, port, kSchedulerId);
  van_->send(ticket, m);
  van_->disconnect(ticket);  // the refusal still goes out
}

void Scheduler::admit(NodeInfo node, int rank_hint, int ticket, const std::string& node_nonce) {
  const int wanted = node.role == Role::Server ? config_.num_servers : config_.num_workers;
  std::set<int> taken;
  for (const auto& n : nodes_)
    if (n.role == node.role) taken.insert(n.rank);
  if (static_cast<int>(taken.size()) >= wanted) {
    van_->disconnect(ticket);
    refuse(node.host, node.port, node_nonce, cat("the job has its ", wanted, " ", role_name(node.role), "(s) already"));
    return;
  }
  node.rank = rank_hint >= 0 && rank_hint < wanted && !taken.count(rank_hint) ? rank_hint : 0;
  while (taken.count(node.rank)) ++node.rank;
  node.id = node_id(node.role, node.rank);
  van_->disconnect(ticket);
  van_->connect(node.id, node.host, node.port, kSchedulerId);
  nodes_.push_back(node);
  last_seen_[node.id] = Clock::now();
  if (config_.verbose >= 1) van_->log("registered " + describe(node));
  if (static_cast<int>(nodes_.size()) < config_.num_servers + config_.num_workers) return;
  send_to_all(Command::kNodes, encode_nodes(nodes_));
  table_sent_ = true;
  van_->log(cat("all ", nodes_.size(), " nodes registered"));
}

void Scheduler::on_barrier(const Message& m, const NodeInfo& from) {
  const int group = m.head.flags;
  const bool member =
      (from.role == Role::Worker && (group & kWorkerGroup)) || (from.role == Role::Server && (group & kServerGroup));
  if (!member || (group & ~(kWorkerGroup | kServerGroup))) {
    van_->log_rejection("ignored " + m.describe() + ": a barrier of a group its sender is not in");
    return;
  }
  barrier_arrived_[group].insert(m.head.sender);
  barrier_request_[m.head.sender] = m.head.request;
  release_barrier(group);
}

// Lets the barrier of `group` go once every node of the group that has not finished is there.
void Scheduler::release_barrier(int group) {
  auto& arrived = barrier_arrived_[group];
  int size = 0;
  for (const auto& n : nodes_)
    if (!finished_.count(n.id) &&
        ((n.role == Role::Worker && (group & kWorkerGroup)) || (n.role == Role::Server && (group & kServerGroup))))
      ++size;
  if (arrived.empty() || static_cast<int>(arrived.size()) < size) return;
  for (int id : arrived) {
    Message done;
    done.head.command = static_cast<uint16_t>(Command::kBarrierDone);
    done.head.sender = kSchedulerId;
    done.head.request = barrier_request_[id];
    van_->send(id, done);
  }
  arrived.clear();
}

void Scheduler::tell_servers_workers_left() {
  for (const auto& n : nodes_) {
    if (n.role != Role::Server) continue;
    Message m;
    m.head.command = static_cast<uint16_t>(Command::kServerCommand);
    m.head.sender = kSchedulerId;
    m.head.recipient = n.id;
    m.head.key = static_cast<int64_t>(ServerCommand::kWorkersLeft);
    m.body = std::to_string(config_.num_workers - static_cast<int>(finished_.size()));
    van_->send(n.id, m);
  }
}

void Scheduler::watch_heartbeats() {
  const auto now = Clock::now();
  for (const auto& n : nodes_) {
    if (finished_.count(n.id)) continue;
    const double silent = std::chrono::duration<double>(now - last_seen_[n.id]).count();
    if (silent > config_.heartbeat_timeout_s) {
      abort(cat(describe(n), " sent nothing for ", static_cast<int>(silent),
                " s (PS_HEARTBEAT_TIMEOUT=", config_.heartbeat_timeout_s, "): it died or hangs; stopping the job"));
      return;
    }
  }
  send_to_all(Command::kHeartbeat, "");
}

void Scheduler::abort(const std::string& why) {
  van_->log("error: " + why);
  send_to_all(Command::kAbort, why);
  ended_ = true;
  status_ = 1;
  changed_.notify_all();
}

void Scheduler::send_to_all(Command c, const std::string& body) {
  for (const auto& n : nodes_) {
    Message m;
    m.head.command = static_cast<uint16_t>(c);
    m.head.sender = kSchedulerId;
    m.head.recipient = n.id;
    m.body = body;
    van_->send(n.id, m);
  }
}

}  // namespace braid::kv::ps
