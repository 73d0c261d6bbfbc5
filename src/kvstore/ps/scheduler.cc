#include "scheduler.h"

#include <algorithm>
#include <sstream>

#include "braid/base/error.h"
#include "key_value.h"

namespace braid::kv::ps {

Scheduler::Scheduler(Config config) : config_(std::move(config)), van_(make_van(config_.transport, "scheduler", config_.verbose)) {}

int Scheduler::run() {
  van_->bind(config_.host, config_.root_port);
  van_->start([this](Message&& m) { handle(std::move(m)); });
  van_->log(cat("waiting for ", config_.num_servers, " server(s) and ", config_.num_workers, " worker(s) on ",
               config_.host, ":", config_.root_port, config_.secret.empty() ? "" : " (nodes must prove the secret)"));
  std::unique_lock<std::mutex> lock(mu_);
  const auto tick =
      std::chrono::duration<double>(config_.heartbeat_interval_s > 0 ? config_.heartbeat_interval_s : 1.0);
  while (!ended_) {
    changed_.wait_for(lock, tick, [this] { return ended_; });
    if (!ended_ && table_sent_ && config_.heartbeat_interval_s > 0) watch_heartbeats();
  }
  const int status = status_;
  lock.unlock();
  van_->stop();
  return status;
}

void Scheduler::handle(Message&& m) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ended_) return;
  if (m.head.sender >= 0) last_seen_[m.head.sender] = Clock::now();
  switch (m.command()) {
    case Command::kRegister:
      on_register(m);
      break;
    case Command::kProof:
      on_proof(m);
      break;
    case Command::kBarrier:
      on_barrier(m);
      break;
    case Command::kHeartbeat:
      break;
    case Command::kFinished:
      finished_.insert(m.head.sender);
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
    case Command::kAbort: {  // a node failed and says why
      auto n = std::find_if(nodes_.begin(), nodes_.end(), [&](const NodeInfo& i) { return i.id == m.head.sender; });
      if (n == nodes_.end())
        van_->log("ignored " + m.describe() + " from an unknown node");
      else
        abort(cat(describe(*n), " failed: ", m.body));
      break;
    }
    default:
      van_->log("ignored " + m.describe());
      break;
  }
}

void Scheduler::on_register(const Message& m) {
  std::istringstream in(m.body);
  std::string role, nonce;
  Pending p;
  const bool parsed = static_cast<bool>(in >> role >> p.node.host >> p.node.port >> p.rank_hint >> nonce);
  const std::optional<Role> r = role_from_name(role);
  if (!parsed || !r || *r == Role::Scheduler) {
    van_->log(cat("rejected a malformed registration '", m.body, "'"));
    return;
  }
  p.node.role = *r;
  const int ticket = next_ticket_--;
  van_->connect(ticket, p.node.host, p.node.port, kSchedulerId);
  if (table_sent_) {
    refuse(ticket, cat("the job's ", config_.num_servers, " server(s) and ", config_.num_workers,
                       " worker(s) have all registered already"));
    return;
  }
  if (config_.secret.empty()) {
    admit(p.node, p.rank_hint, ticket);
    return;
  }
  p.nonce = random_nonce();
  Message challenge;
  challenge.head.command = static_cast<uint16_t>(Command::kChallenge);
  challenge.head.sender = kSchedulerId;
  challenge.head.request = static_cast<uint64_t>(-ticket);
  challenge.body = p.nonce + " " + proof_of_secret(config_.secret, "scheduler", nonce);
  van_->send(ticket, challenge);
  pending_[ticket] = std::move(p);
}

void Scheduler::on_proof(const Message& m) {
  const int ticket = -static_cast<int>(m.head.request);
  auto it = pending_.find(ticket);
  if (it == pending_.end()) {
    van_->log("ignored a proof without a registration");
    return;
  }
  Pending p = std::move(it->second);
  pending_.erase(it);
  if (!same_proof(m.body, proof_of_secret(config_.secret, role_name(p.node.role), p.nonce))) {
    van_->log(cat("refused a ", role_name(p.node.role), " at ", p.node.host, ":", p.node.port,
                 ": it does not know the job's secret (BRAID_PS_SECRET)"));
    refuse(ticket,
           "this node does not know the job's secret: set BRAID_PS_SECRET to the job's value "
           "(braid launch passes it on)");
    return;
  }
  admit(p.node, p.rank_hint, ticket);
}

void Scheduler::refuse(int ticket, const std::string& why) {
  Message m;
  m.head.command = static_cast<uint16_t>(Command::kRefused);
  m.head.sender = kSchedulerId;
  m.body = why;
  van_->send(ticket, m);
}

void Scheduler::admit(NodeInfo node, int rank_hint, int ticket) {
  const int wanted = node.role == Role::Server ? config_.num_servers : config_.num_workers;
  std::set<int> taken;
  for (const auto& n : nodes_)
    if (n.role == node.role) taken.insert(n.rank);
  if (static_cast<int>(taken.size()) >= wanted) {
    refuse(ticket, cat("the job has its ", wanted, " ", role_name(node.role), "(s) already"));
    return;
  }
  node.rank = rank_hint >= 0 && rank_hint < wanted && !taken.count(rank_hint) ? rank_hint : 0;
  while (taken.count(node.rank)) ++node.rank;
  node.id = node_id(node.role, node.rank);
  van_->connect(node.id, node.host, node.port, kSchedulerId);
  nodes_.push_back(node);
  last_seen_[node.id] = Clock::now();
  if (config_.verbose >= 1) van_->log("registered " + describe(node));
  if (static_cast<int>(nodes_.size()) < config_.num_servers + config_.num_workers) return;
  send_to_all(Command::kNodes, encode_nodes(nodes_));
  table_sent_ = true;
  van_->log(cat("all ", nodes_.size(), " nodes registered"));
}

void Scheduler::on_barrier(const Message& m) {
  const int group = m.head.flags;
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
