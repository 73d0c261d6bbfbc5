#include "van.h"

#include <cstdio>
#include <cstring>

#include "braid/base/error.h"
#include "braid/base/printable.h"
#include "inproc_van.h"

namespace braid::kv::ps {

void Van::require_auth() { auth_required_ = true; }

void Van::set_auth(std::shared_ptr<const FrameAuth> auth) {
  std::lock_guard<std::mutex> lock(auth_mu_);
  auth_ = std::move(auth);
}

std::string Van::seal(const Message& m) {
  std::string frame = encode_first_frame(m);
  Header h;
  std::memcpy(&h, frame.data(), sizeof h);
  h.sequence = next_sequence_++;
  std::shared_ptr<const FrameAuth> auth;
  {
    std::lock_guard<std::mutex> lock(auth_mu_);
    auth = auth_;
  }
  if (auth && !is_handshake(m.command())) auth->seal(h, m.body, m.payload.data, m.payload.size);
  std::memcpy(frame.data(), &h, sizeof h);
  return frame;
}

bool Van::admit(Message& m, const std::string& from) {
  if (!auth_required_ || is_handshake(m.command())) return true;  // handshakes carry their own proofs
  std::shared_ptr<const FrameAuth> auth;
  {
    std::lock_guard<std::mutex> lock(auth_mu_);
    auth = auth_;
  }
  const char* why = nullptr;
  if (!auth)
    why = "it came before this node holds the job's key";
  else if (!auth->verify(m.head, m.body, m.payload.data, m.payload.size))
    why = "its MAC is wrong: it is not from a node of this job (BRAID_PS_SECRET)";
  else if (!replays_.accept(m.head.sender, m.head.sequence))
    why = "it is a replay (its sequence number is not new)";
  if (why) {
    log_rejection(cat("rejected a message from '", printable(from, 64), "': ", why, "; ", m.describe()));
    return false;
  }
  m.authenticated = true;
  return true;
}

void Van::log_rejection(const std::string& text) {
  int missed = 0;
  const bool allowed = rejections_.allow(&missed);
  if (missed > 0) log(cat("(", missed, " more rejections were not logged)"));
  if (allowed) log(text);
}

void Van::set_log_prefix(std::string prefix) {
  std::lock_guard<std::mutex> lock(log_mu_);
  prefix_ = std::move(prefix);
}

void Van::log(const std::string& text) const {
  std::lock_guard<std::mutex> lock(log_mu_);
  // Text from peers is in many lines: none of it can start a line of its own.
  const std::string line = "[" + prefix_ + "] " + printable(text, kMaxLogLine) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

std::unique_ptr<Van> make_van(Transport transport, std::string log_prefix, int verbose) {
  if (transport == Transport::InProcess) return std::make_unique<InProcessVan>(std::move(log_prefix), verbose);
  return make_zmq_van(std::move(log_prefix), verbose);
}

}  // namespace braid::kv::ps
